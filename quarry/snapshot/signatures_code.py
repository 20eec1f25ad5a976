"""Programming languages and shells that neither content model names, each by the forms its own
documentation prescribes (a table of quarry.snapshot.signatures): the fish and C shells, Gleam,
Hy, Janet, Vyper, Luau, LSL, SourcePawn, nesC, Jasmin, Dylan, Zephir, Logtalk, SuperCollider,
LiveScript, Pawn, Ragel, Logos, Objective-J, X10, Whiley and Csound.

Each is told from the language it borrows from by what that one never writes: fish's `set -l`
and `$argv` (Bash sets options, not variables), csh's `if (...) then` and `setenv`, Hy's `setv`
and Janet's `@[...]` (never Clojure's), Vyper's decorators and storage types (never Python's),
Luau's typed locals (never Lua's), SourceMod's API and nesC's wiring (never C's), Jasmin's
`.limit` (never Smali's), Zephir's `let` and `->` return types (never PHP's), Logtalk's
`:- object(` (never Prolog's), LiveScript's dashed names and `require!` (never CoffeeScript's).
"""

from __future__ import annotations

from quarry.snapshot.dialects import forms, signed, word

_FISH_FORMS = forms(
    # a variable set with its scope, or to a command's output (Bash's `set` sets options)
    set_=(("set ",), r"^[ \t]*set[ \t]+(?:-[lgxUeqapSnL]+|--(?:local|global|export|universal|erase|query|append|"
                     r"prepend))(?:[ \t]+-[lgxUeqap]+)*[ \t]+[A-Za-z_]\w*|^[ \t]*set[ \t]+(?:-\w+[ \t]+)*[\w-]+[ \t]+"
                     r"\((?!\()"),
    function=(("function ",), r"^[ \t]*function[ \t]+[\w-]+(?:[ \t]+(?:--(?:description|argument-names|on-event|"
                              r"on-variable|wraps)|-[adwev])\b[^\n]*)[ \t]*$"),
    # fish's own commands and arguments (its `string match` is Tcl's too; so is `$argv`, one kind with these)
    builtin=(("set_color", "status is-", "status --is-", "complete -c", "fish_", "contains --", "$argv"),
             r"\$argv\b|\bset_color\b|\bstatus[ \t]+(?:--)?is-(?:interactive|login)|^[ \t]*complete[ \t]+-c[ \t]|"
             r"\b(?:__)?fish_[a-z_]+|\bcontains[ \t]+--"),
)
_TCSH_FORMS = forms(
    setenv=(("setenv",), r"^[ \t]*setenv[ \t]+\w+(?:[ \t]+\S|[ \t]*$)"),
    set_=(("set ",), r"^[ \t]*set[ \t]+\w+(?:\[\d+\])?[ \t]+=[ \t]+\S"),
    if_then=(("then",), r"^[ \t]*(?:else[ \t]+)?if[ \t]*\([^\n]*\)[ \t]+then[ \t]*$"),
    switch=(("endsw", "breaksw"), r"^[ \t]*(?:endsw|breaksw)[ \t]*$"),
    foreach=(("foreach",), r"^[ \t]*foreach[ \t]+\w+[ \t]*\("),
    special=(("$#", "$?"), r"\$#argv\b|\$\?\w+"),   # Perl's `$#array` is another
    arithmetic=(("@ ",), r"^[ \t]*@[ \t]+\w+(?:\[\d+\])?[ \t]*(?:[-+*/]?=|\+\+|--)"),
)
_GLEAM_FORMS = forms(
    # a module path (Koka's standard library is `std/...`)
    import_=(("import ",), r"^import[ \t]+(?!std/)\w+(?:/\w+)+(?:\.\{[^}\n]*\})?(?:[ \t]+as[ \t]+\w+)?[ \t]*$|"
                           r"^import[ \t]+(?!std/)[\w/]+\.\{[ \t]*(?:type[ \t]+)?[A-Z]"),
    # an anonymous function with its body (Rust's `fn(i32) -> i32` is a type, never followed by one)
    anonymous_fn=(("fn(",), r"(?<![\w.])fn\([\w, ]*\)[ \t]*(?:->[ \t]*\w+[ \t]*)?\{"),
    # a function's type over type variables (Rust's are capitalised or its primitives)
    fn_type=(("fn(",), r"fn(?<!\wfn)\((?:[a-z]\w*(?:,[ \t]*)?)*\)[ \t]*->[ \t]*"
                      r"(?!(?:[iu](?:8|16|32|64|128|size)|f32|f64|bool|str|char)\b)[a-z]\w*\b"),
    use=(("use ",), r"^[ \t]*use[ \t]+(?:\w+(?:[ \t]*,[ \t]*\w+)*[ \t]+)?<-[ \t]*[\w.]+"),
    type_=(("type ",), r"^(?:pub[ \t]+)?(?:opaque[ \t]+)?type[ \t]+[A-Z]\w*(?:\([^)\n]*\))?[ \t]*\{"),
    returns=(("->",), r"\)[ \t]*->[ \t]*(?:Nil|(?:List|Result|Option|Dict|Set)\()"),
    external=(("@external",), r"^@external\((?:erlang|javascript),"),
    io=(("io.",), r"io(?<!\wio)\.(?:println|debug|print)\("),
    let_assert=(("let assert",), word("let") + r"[ \t]+assert[ \t]"),
)
_HY_FORMS = forms(
    setv=(("(setv", "(setx"), r"\(set[vx][ \t]"),
    defclass=(("(defclass",), r"\(defclass[ \t]+[\w-]+[ \t]+\["),
    comprehension=(("for ",), r"\((?:lfor|dfor|sfor|gfor)[ \t]"),
    hy=(("hy", "(import"), r"\(require[ \t]+hyrule\b|\bhy\.(?:eval|read|macroexpand|models)\b|"
                          r"\(import[ \t]+(?:os|sys|re|json|math|collections|itertools|functools|pathlib)\b"),
    except_=(("(except",), r"\(except[ \t]+\["),
    fstring=(("f\"",), r"\((?:print|setv[ \t]+[\w-]+)[ \t]+f\""),
)
_JANET_FORMS = forms(
    # an array, or a table of keywords (Perl's `@{$ref}` is a dereference)
    collection=(("@[", "@{", "@\"\""), r"(?<![\w@$])@(?:\[(?!\\)|\{[ \t]*(?:\}|:)|\"\")"),   # not a regex's `@[\\s]`
    module=(("/",), r"\((?:array|string|table|buffer|os|ev|peg|fiber|module|struct|tuple|net|file)/[a-z][\w-]*[ \t)]"),
    loop=(("(loop", "(seq", "(generate", "(tabseq"), r"\((?:loop|seq|generate|tabseq)[ \t]+\[[^\n:]*?[ \t]:(?:in|range|"
                                                     r"keys|pairs|down|iterate)\b"),
    # a short function of `$` arguments, optional and named parameters (Clojure's `&` stands alone)
    short_fn=(("|(",), r"(?<![\w|])\|\([\w/*+<>=!?-]+[ \t][^()\n]*\$"),
    parameters=(("&opt", "&keys", "&named"), r"\[[^\[\]\n]*&(?:opt|keys|named)\b"),
    var=(("(var ",), r"\(var[ \t]+[\w-]+[ \t]+(?!in\b|of\b)[^\s=;,)]"),   # JavaScript's `for (var x in o)` is not
    import_=(("(import", "(use "), r"\((?:import|use)[ \t]+(?:spork|jaylib|sh|\./)"),
)
_VYPER_FORMS = forms(
    version=(("version",), r"^#[ \t]*(?:@version|pragma[ \t]+version)[ \t]+\S"),
    decorator=(("@",), r"^@(?:external|internal|view|pure|payable|nonpayable|nonreentrant|deploy)\b"),
    storage=((":",), r"^\w+[ \t]*:[ \t]*(?:public\(|HashMap\[|immutable\(|constant\(|DynArray\[|"
                     r"(?:uint256|int128|address|bytes32|bool|String\[\d+\]|Bytes\[\d+\])[ \t]*$)"),
    declaration=(("event ", "struct ", "interface ", "flag "),
                 r"^(?:event|struct|interface|flag)[ \t]+\w+[ \t]*:[ \t]*$"),
    returns=(("->",), r"^def[ \t]+\w+\([^\n]*\)[ \t]*->[ \t]*(?:uint\d+|int\d+|bool|address|bytes\d+|String\[|Bytes\[|"
                      r"DynArray\[)"),
    log=(("log ",), r"^[ \t]+log[ \t]+[A-Z]\w*\("),
)
_LUAU_FORMS = forms(
    mode=(("--!",), r"^--!(?:strict|nonstrict|nocheck)\b"),
    typed_local=(("local",), r"^[ \t]*local[ \t]+\w+[ \t]*:[ \t]*[\w{(][^=\n]*="),
    # typed parameters or a return type (Lua writes neither; TypeScript's function opens a brace)
    typed_function=(("function",), r"^[ \t]*(?:local[ \t]+)?function[ \t]+[\w.:]*\((?:[^)\n]*\w[ \t]*:[ \t]*[\w{(]"
                                   r"[^)\n]*\)[^\n{]*|[^)\n]*\)[ \t]*:[ \t]*[\w{(?][^\n{]*)$"),
    type_alias=(("type ",), r"^(?:export[ \t]+)?type[ \t]+\w+(?:<[^>\n]*>)?[ \t]*=[ \t]*\{[ \t]*$"),
    roblox=(("GetService", "Instance.new", "script.Parent"),
            r"\bgame:GetService\(|\bInstance\.new\(|\bscript\.Parent\b"),
)
_LSL_FORMS = forms(
    state=(("default", "state "), r"^[ \t]*(?:default|state[ \t]+\w+)[ \t]*(?:\{[ \t]*)?$"),
    event=(("state_entry", "touch_start", "on_rez", "listen(", "timer(", "link_message", "changed("),
           r"^[ \t]*(?:state_entry|state_exit|touch_start|touch_end|on_rez|listen|timer|link_message|changed|"
           r"collision_start|http_response|dataserver|run_time_permissions|sensor|no_sensor)[ \t]*\([^\n]*\)"),
    function=(("llSay", "llOwnerSay", "llSet", "llGet", "llListen", "llList", "llDetected", "llMessageLinked",
               "llDialog", "llRegionSay", "llGive", "llRequest", "llHTTP", "llString", "llSubString", "llTo"),
              r"ll(?<!\wll)[A-Z][a-zA-Z0-9]+[ \t]*\("),
    constant=(("PRIM_", "PERMISSION_", "CHANGED_", "NULL_KEY", "ZERO_VECTOR"),
              r"\b(?:PRIM_[A-Z_]+|PERMISSION_[A-Z_]+|CHANGED_[A-Z_]+|NULL_KEY|ZERO_VECTOR|ZERO_ROTATION)\b"),
)
_SOURCEPAWN_FORMS = forms(
    include=(("#include",), r"^#include[ \t]*<(?:sourcemod|sdktools\w*|cstrike|tf2\w*|sdkhooks|clientprefs|"
                            r"left4dhooks)>"),
    myinfo=(("myinfo",), r"\bpublic[ \t]+Plugin:?[ \t]*myinfo[ \t]*="),
    pragma=(("#pragma",), r"^#pragma[ \t]+(?:semicolon[ \t]+1|newdecls[ \t]+required)"),
    api=(("Reg", "Hook", "CreateConVar", "PrintTo", "ReplyToCommand", "IsClient", "CreateTimer"),
         r"(?:RegConsoleCmd|RegAdminCmd|HookEvent|HookConVarChange|CreateConVar|PrintToChat(?:All)?|PrintToServer|"
         r"PrintHintText|ReplyToCommand|IsClientInGame|IsClientConnected|CreateTimer)[ \t]*\("),
    action=(("Plugin_",), r"Plugin_(?:Handled|Continue|Stop|Changed)\b"),
    old_syntax=((" String:", " Float:", " Handle:", " bool:"), r"(?:new|decl)[ \t]+(?:String|Float|Handle|bool):\w+"),
)
_NESC_FORMS = forms(
    component=(("module", "configuration"), r"^[ \t]*(?:generic[ \t]+)?(?:module|configuration)[ \t]+\w+"
                                             r"(?:[ \t]*\([^)\n]*\))?[ \t]*(?:@\w+\([^)\n]*\)[ \t]*)?\{"),
    interface=(("uses", "provides"), r"^[ \t]*(?:uses|provides)[ \t]+(?:interface[ \t]+\w+|command|event|\{)"),
    implementation=(("implementation",), r"^[ \t]*implementation[ \t]*\{"),
    handler=(("event ", "command "), r"(?:event|command)[ \t]+\w[\w \t*]*?[ \t*]\w+\.\w+[ \t]*\("),
    # an interface's command or event (C's comments "call free(" are not)
    call=(("call ", "signal ", "post "),
          r"(?:call|signal)[ \t]+[A-Z]\w*\.\w+[ \t]*\(|post[ \t]+\w+[ \t]*\(\)[ \t]*;"),
    wiring=(("->", "components"), r"^[ \t]*components[ \t]+(?:new[ \t]+)?\w+|^[ \t]*[A-Z]\w*\.\w+[ \t]*->[ \t]*[A-Z]\w*"
                                  r"(?:\.\w+)?[ \t]*;|^[ \t]*[A-Z]\w*[ \t]*->[ \t]*[A-Z]\w*\.\w+[ \t]*;"),
)
_JASMIN_FORMS = forms(
    class_=((".class",), r"^\.class[ \t]+(?:(?:public|final|abstract|interface|super|private)[ \t]+)*(?!L[\w/$]+;)"
                         r"[\w/$]+[ \t]*$"),
    super_=((".super",), r"^\.super[ \t]+(?!L[\w/$]+;)[\w/$]+[ \t]*$"),
    limit=((".limit",), r"^[ \t]*\.limit[ \t]+(?:stack|locals)[ \t]+\d+"),
    method=((".method", ".end method"), r"^\.method[ \t]+(?:(?:public|private|protected|static|final|abstract|"
                                        r"synchronized|native)[ \t]+)*[\w<>$]+\([^)\n]*\)[\w/;$\[]+[ \t]*$"),
    opcode=(("invoke", "load", "store", "getstatic", "ldc", "return"),
            r"^[ \t]*(?:invokevirtual|invokestatic|invokespecial|invokeinterface|getstatic|putstatic|getfield|putfield|"
            r"[ailfd]load_\d|[ailfd]store_\d|ldc(?:_w)?|[ailfd]return)\b"),
)
_DYLAN_FORMS = forms(
    header=(("Module:",), r"\AModule:[ \t]*[\w-]+[ \t]*$"),
    define=(("define ",), r"^define[ \t]+(?:(?:sealed|open|abstract|concrete|primary|free|inline|domain)[ \t]+)*"
                          r"(?:method|function|class|generic|constant|variable|macro|module|library)[ \t]+[\w<>*$-]+"),
    end=(("end ",), r"^[ \t]*end[ \t]+(?:method|class|function|generic|macro|module|library|block|if|for|while|case|"
                    r"select)\b[^\n]*;"),
    type_=((":: <", "::<"), r"::[ \t]*<[\w-]+>"),
    format_out=(("format-out",), r"format-out\("),
)
_ZEPHIR_FORMS = forms(
    namespace=(("namespace",), r"^namespace[ \t]+\w+(?:\\\w+)*[ \t]*;"),
    returns=(("->",), r"^[ \t]*(?:(?:public|protected|private|static|final|abstract|internal|inline|deprecated)[ \t]+)+"
                      r"function[ \t]+\w+\([^)\n]*\)[ \t]*->[ \t]*(?:<[\w\\]+>|[\w]+)"),
    # JavaScript's `let x =` and `var a, b;` are not Zephir's own: a property set by `let this->`
    let=(("let this->", "let {"), r"^[ \t]*let[ \t]+(?:this->\w+|\{\w+\})"),
    # a loop over keys and values with a brace (Go's has `:= range`, Lua's `do`, Rust's and Swift's a tuple)
    for_in=(("for ",), r"^[ \t]*for[ \t]+\w+[ \t]*,[ \t]*\w+[ \t]+in[ \t]+[^\n{]+\{"),
    # a parameter that may not be null
    strict_parameter=(("! ",), r"[(,][ \t]*(?:string|int|long|double|bool|boolean|array|object|callable|"
                               r"var)![ \t]+\w+"),
    typed_local=(("int ", "string ", "array ", "bool ", "double "),
                 r"^[ \t]*(?:int|uint|long|string|array|bool|boolean|double|char)[ \t]+\w+(?:[ \t]*=[^;\n]+)?"
                 r"(?:[ \t]*,[ \t]*\w+(?:[ \t]*=[^;\n]+)?)+[ \t]*;"),
    fetch=(("fetch ",), r"fetch(?<!\wfetch)[ \t]+\w+[ \t]*,[ \t]*\w+"),
)
_LOGTALK_FORMS = forms(
    entity=((":- object(", ":- protocol(", ":- category("), r"^:-[ \t]*(?:object|protocol|category)\("),
    end=(("end_",), r"^:-[ \t]*end_(?:object|protocol|category)[ \t]*\."),
    directive=((":- ",), r"^[ \t]*:-[ \t]*(?:public|private|protected|info|uses|mode|alias)\("),
    message=(("::",), r"\b\w+::\w+\("),
)
_SUPERCOLLIDER_FORMS = forms(
    synthdef=(("SynthDef",), r"\bSynthDef\([ \t]*[\\'\"]"),
    ugen=((".ar(", ".kr(", ".ir("), r"\b[A-Z]\w*\.(?:ar|kr|ir)\("),
    server=(("s.", "Server."), r"\b(?:s|Server\.default)\.(?:boot|waitForBoot|sync|quit|reboot)\b"),
    pattern=(("Pbind", "Pseq", "Prand", "Routine", "Pdef"), word("P") + r"(?:bind|seq|rand|white|def)\(|\bRoutine[ \t]*"
                                                                         r"\{"),
    symbol=(("\\",), r"\\(?:freq|amp|out|gate|dur|instrument|note|degree|pan|rel|atk|sustain|legato)[ \t]*,"),
    environment=(("~",), r"^[ \t]*~\w+(?:\.\w+)*[ \t]*=[ \t]"),
    # a class and its methods: `Limiter : UGen {`, `*ar { |in, gain = 1|`, `^this.multiNew(...)`
    class_=((" : ", "^this."), r"^[A-Z]\w*[ \t]*:[ \t]*[A-Z]\w*[ \t]*\{|\^this\.\w+"),
    method=(("{ |", "{|"), r"^[ \t]*\*?[a-z]\w*[ \t]*\{[ \t]*\|[^|\n]*\|"),
)
_LIVESCRIPT_FORMS = forms(
    require=(("require!",), r"require![ \t]*[{\['\w]"),
    # a function bound to a dashed name (CoffeeScript's names have no dashes), or curried (`-->`)
    dashed_function=(("->", "~>"), r"^[ \t]*(?:export[ \t]+)?[a-z]\w*(?:-[a-z]\w*)+[ \t]*=[ \t]*(?:\([^)\n]*\)[ \t]*)?"
                                  r"[-~]{1,2}>"),
    curried=(("-->",), r"^[ \t]*[\w$-]+[ \t]*=[ \t]*\([^)\n]*\)[ \t]*-->|\)[ \t]*-->[ \t]+[\w(\[]"),
    # a call without arguments (`val.trim!`; Ruby's `save!` has no dashed names beside it)
    bang_call=(("!",), r"\.[a-z][\w-]*!(?=[ \t]*(?:$|[)\],.]))"),
    word_list=(("<[",), r"<\[[ \t]+\w+(?:[ \t]+\w+)+[ \t]+\]>"),
    range_=((" to ", " til "), r"\[[ \t]*\d+[ \t]+(?:to|til)[ \t]+\d+(?:[ \t]+by[ \t]+\d+)?[ \t]*\]"),
)
_PAWN_FORMS = forms(
    include=(("#include",), r"^#include[ \t]*<(?:a_samp|a_players|a_npc|a_http|a_mysql|zcmd|sscanf2|streamer|YSI)"),
    callback=(("public ",), r"^public[ \t]+On[A-Z]\w*\("),
    forward=(("forward ",), r"^forward[ \t]+(?:\w+:)?\w+\("),
    stock=(("stock ", "native "), r"^(?:stock|native)[ \t]+(?:\w+:)?\w+\("),
    new=(("new ",), r"^[ \t]*new[ \t]+(?:Float:|bool:|Text:|PlayerText:)?\w+(?:\[[^\]\n]*\])*[ \t]*(?:=[^=\n]|;|,)"),
)
_RAGEL_FORMS = forms(
    opening=(("%%{",), r"%%\{"),
    machine=(("machine ",), r"^[ \t]*machine[ \t]+\w+[ \t]*;"),
    write=(("write ",), r"%%[ \t]*write[ \t]+(?:data|init|exec|exports)\b|^[ \t]*write[ \t]+(?:data|init|exec)\b"),
    action=(("action ",), r"^[ \t]*action[ \t]+\w+[ \t]*\{"),
    main=(("main",), r"^[ \t]*main[ \t]*:?=[^=\n]"),
)
_LOGOS_FORMS = forms(
    hook=(("%hook",), r"^%hook[ \t]+\w+"),
    orig=(("%orig",), r"%orig\b"),
    end=(("%end",), r"^%end\b"),
    setup=(("%ctor", "%init", "%group", "%subclass", "%new"), r"^%(?:ctor|group|subclass|new)\b|%init\b"),
)
_OBJECTIVE_J_FORMS = forms(
    import_=(("@import",), r"^@import[ \t]*[<\"][^>\"\n]+\.j[>\"]"),
    implementation=(("@implementation",), r"^@implementation[ \t]+\w+[ \t]*:[ \t]*CP\w+"),
    cappuccino=(("CP",), r"\[CP[A-Z]\w+[ \t]+\w+|\bCP(?:Object|String|Array|View|Window|Dictionary|Application)\b"),
    var=(("var ",), r"^[ \t]*var[ \t]+\w+[ \t]*=[ \t]*\[\["),
)
_X10_FORMS = forms(
    import_=(("import x10",), r"^import[ \t]+x10\."),
    # X10's own types (Scala writes `val x: Int` too)
    typed=((":",), r"\b(?:val|var)[ \t]+\w+[ \t]*:[ \t]*(?:Rail|Place|PlaceGroup|DistArray|GlobalRef|Region|Dist|"
                   r"Cell)\b"),
    # a method's result type before its body (Scala's `def f(x: Int): Int` has an `=`), a field ended by `;`
    method=(("def ",), r"\bdef[ \t]+\w+[ \t]*\([^)\n]*\)[ \t]*:[ \t]*[\w.]+(?:\[[^\]\n]*\])?[ \t]*\{"),
    field=(("val ", "var "), r"\b(?:val|var)[ \t]+\w+[ \t]*:[ \t]*[\w.]+(?:\[[^\]\n]*\])?[ \t]*(?:=[^;\n]*)?;"),
    activity=(("finish", "async", "atomic", "at ("), r"\b(?:finish|async|atomic)[ \t]*\{|"
                                           r"\bat[ \t]*\([^)\n]*\)[ \t]*(?:async|\{)"),
    console=(("Console.",), r"Console\.OUT\.println"),
)
# the rest of a line that is a condition: a comparison in it, no full stop ending a sentence
_CONDITION = r"(?=[^\n]*(?:>=|<=|==|!=|[ \t][<>][ \t]|\|[\w.]+\|))(?:[^\n.]|\.\w)*+$"
_WHILEY_FORMS = forms(
    # results after `->`, named in parentheses (Dafny writes `returns`, PHP `: int`)
    signature=(("function", "method"),
               r"^(?:(?:public|private|export|native)[ \t]+)*(?:function|method)[ \t]+\w+(?:<[^>\n]*>)?\([^\n]*\)"
               r"[ \t]*->[ \t]*(?:\(|[\w\[\]]+[ \t]*$)"),
    # a condition, not a sentence that starts with the word ("  ensures that snapshots ...")
    contract=(("requires", "ensures"), r"^[ \t]*(?:requires|ensures)[ \t]+" + _CONDITION),
    import_=(("import ",), r"^import[ \t]+\w+(?:::\w+)+"),
    type_=(("type ",), r"^(?:public[ \t]+)?type[ \t]+\w+[ \t]+is[ \t]*(?:[({]|[\w\[\]]+[ \t]*\|)"),
    where=(("where",), r"^[ \t]*where[ \t]+" + _CONDITION),
)
_CSOUND_DOCUMENT_TAGS = forms(
    synthesizer=(("<CsoundSynthesizer>",), r"^<CsoundSynthesizer>"),
    options=(("<CsOptions>",), r"^<CsOptions>"),
    instruments=(("<CsInstruments>",), r"^<CsInstruments>"),
    score=(("<CsScore>",), r"^<CsScore>"),
)
_CSOUND_ORCHESTRA_FORMS = forms(
    instrument=(("instr",), r"^[ \t]*instr[ \t]+\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*(?:;[^\n]*)?$"),
    end=(("endin", "endop"), r"^[ \t]*end(?:in|op)\b"),
    user_opcode=(("opcode ", "xin", "xout"), r"^[ \t]*opcode[ \t]+\w+[ \t]*,[ \t]*[\w\[\]]+[ \t]*,[ \t]*[\w\[\]]+|"
                                            r"^[ \t]*[\w\[\]]+(?:[ \t]*,[ \t]*[\w\[\]]+)*[ \t]+xin\b|"
                                            r"^[ \t]*xout[ \t]+\w"),
    header=(("sr", "ksmps", "nchnls", "0dbfs"), r"^[ \t]*(?:sr|kr|ksmps|nchnls|0dbfs)[ \t]*=[ \t]*\d"),
    opcode=(("oscil", "linseg", "expseg", "madsr", "adsr", "vco2", "outs", "reverb", "moogladder", "rand"),
            r"^[ \t]*[aki]\w*(?:[ \t]*,[ \t]*[aki]\w*)*[ \t]+(?:oscili?|poscil\d?|linseg|expseg|line|rand|madsr|adsr|"
            r"vco2|moogladder|reverb|buzz|pluck|foscil)\b"),
    output=(("out",), r"^[ \t]*(?:out|outs|outch)[ \t]+[ak]\w+"),
)

SIGNATURES = {
    "Fish": signed(("set -", "set --", "$argv", "\nfunction ", "fish_", "set_color", "complete -c"), _FISH_FORMS, 2),
    "Tcsh": signed(("setenv ", ") then", "foreach ", "endsw", "breaksw", "$#argv"), _TCSH_FORMS, 2),
    "Gleam": signed(("import gleam", "pub type", "@external", "io.println", "io.debug", " <- ", "fn("),
                    _GLEAM_FORMS, 2),
    "Hy": signed(("(setv", "(defclass", "(defn", "(import", "(require"), _HY_FORMS, 2),
    "Janet": signed(("@[", "@{", "@\"", "(defn", "(var ", "(loop", "(def ", "(seq "), _JANET_FORMS, 2),
    "Vyper": signed(("@external", "@internal", "@view", "@version", "pragma version", "HashMap[", "public("),
                    _VYPER_FORMS, 2),
    "Luau": signed(("--!", "local ", "GetService"), _LUAU_FORMS, 2),
    "LSL": signed(("state_entry", "touch_start", "on_rez", "llOwnerSay", "llSay", "llSetText", "llListen"),
                  _LSL_FORMS, 2),
    "SourcePawn": signed(("#include <sourcemod>", "myinfo", "#pragma semicolon", "#pragma newdecls", "Plugin_",
                          "RegConsoleCmd"),
                         _SOURCEPAWN_FORMS, 2),
    "nesC": signed(("implementation {", "implementation\n", "uses interface", "provides interface", "components "),
                   _NESC_FORMS, 2),
    "Jasmin": signed((".class", ".method", ".limit"), _JASMIN_FORMS, 2),
    "Dylan": signed(("Module:", "\ndefine method", "\ndefine class", "\ndefine function", "\ndefine generic",
                     "\ndefine constant", "\ndefine variable", "\ndefine macro", "\ndefine module", "\ndefine library",
                     "\ndefine sealed", "\ndefine open", "\ndefine abstract"), _DYLAN_FORMS, 2),
    "Zephir": signed(("let this->", ") -> ", "let {", "string! ", "array! ", "int! "), _ZEPHIR_FORMS, 2),
    "Logtalk": signed((":- object(", ":- protocol(", ":- category("), _LOGTALK_FORMS, 2),
    "SuperCollider": signed(("SynthDef", ".ar(", ".kr(", "Pbind", "s.boot", "Routine", "\n~", "^this.", "UGen"),
                            _SUPERCOLLIDER_FORMS, 2),
    "Pawn": signed(("#include <a_samp>", "public On", "forward ", "stock ", "native "), _PAWN_FORMS, 2),
    "Ragel": signed(("%%{", "machine "), _RAGEL_FORMS, 2),
    "Logos": signed(("%hook", "%orig", "%ctor"), _LOGOS_FORMS, 2),
    "Objective-J": signed(("@import", "CPObject", "CPString", "@implementation"), _OBJECTIVE_J_FORMS, 2),
    "X10": signed(("x10.", "Console.OUT", "Rail[", "finish {", "finish\n", "async {", "def this("), _X10_FORMS, 2),
    "Whiley": signed(("requires", "ensures", "import std::", "function ", "method "), _WHILEY_FORMS, 2),
    "LiveScript": signed(("require!", ") ->", ") -->", " = ->", "<[ ", "~>", "!->", "export "), _LIVESCRIPT_FORMS, 2),
    # before the orchestra its instruments hold
    "Csound Document": signed(("<CsoundSynthesizer>",), _CSOUND_DOCUMENT_TAGS, 2),
    "Csound Orchestra": signed(("instr", "ksmps", "nchnls", "opcode ", "endop"), _CSOUND_ORCHESTRA_FORMS, 2),
}
