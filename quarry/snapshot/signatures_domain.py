"""Languages of one toolchain, application or standard that neither content model names, each by
the forms its own documentation prescribes (a table of quarry.snapshot.signatures): Web IDL,
ABNF grammars, LLVM's TableGen, Android's Soong blueprints, Haxe's build files (hxml), BibTeX
styles, World of Warcraft's addon tables of contents, CNC g-code, Csound scores, Genshi (and Kid)
templates, ColdFusion pages and components, Python tracebacks, MetaTrader's MQL, IGOR Pro
procedures, IDL (the Interactive Data Language), Core War's Redcode, BlitzMax and Inform 7.

Near languages kept apart: CORBA's IDL (Web IDL needs one kind more where a `module` or an `in`
argument occurs), C's `extern int x;` and `long long` (MQL, Web IDL), JavaScript's object literals
(Soong needs a module's name under its type), OCaml's `let ... in` and `!x` (TableGen), Visual
Basic's `End Function` (BlitzMax, IGOR Pro), Verilog's `endcase` and Pascal's `then begin` (IDL),
MIPS's `slt` (Redcode), a README's "Before installing:" (Inform 7 needs three kinds).
"""

from __future__ import annotations

from quarry.snapshot.dialects import Signature, forms, signed

_WEBIDL_ATTRIBUTES = ("Exposed", "Constructor", "SecureContext", "LegacyNoInterfaceObject", "NoInterfaceObject",
                      "Global", "HTMLConstructor", "LegacyUnforgeable", "Serializable", "Transferable",
                      "CEReactions", "NewObject", "SameObject", "Replaceable", "PutForwards", "LegacyFactoryFunction",
                      "ChromeOnly", "RuntimeEnabled", "Pref", "Func", "Throws")
_WEBIDL_FORMS = forms(
    extended_attribute=(tuple(f"[{name}" for name in _WEBIDL_ATTRIBUTES),
                        rf"\[(?:{'|'.join(_WEBIDL_ATTRIBUTES)})\b"),
    definition=(("partial ", "interface mixin", "dictionary ", "callback "),
                r"^[ \t]*(?:partial[ \t]+(?:interface|dictionary|namespace)(?:[ \t]+mixin)?[ \t]+\w+|"
                r"interface[ \t]+mixin[ \t]+\w+|dictionary[ \t]+\w+[ \t]*(?::[ \t]*\w+[ \t]*)?\{|"
                r"callback[ \t]+(?:interface[ \t]+\w+|\w+[ \t]*=))"),
    attribute=(("attribute ",), r"^[ \t]*(?:(?:readonly|static|stringifier|inherit)[ \t]+)*attribute[ \t]+[\w?<>]+"
                                r"(?:[ \t]+[\w?<>]+)?[ \t]+\w+[ \t]*;"),
    types=(("DOMString", "USVString", "ByteString", "BufferSource", "EventHandler", "unrestricted ", "long long",
            "sequence<", "FrozenArray<", "record<", "Promise<"),
           r"\b(?:DOMString|USVString|ByteString|BufferSource|EventHandler)\b|"
           r"\b(?:unrestricted[ \t]+(?:double|float)|long[ \t]+long)\b|\b(?:sequence|FrozenArray|record|Promise)<"),
    includes=((" includes ",), r"^[ \t]*\w+[ \t]+includes[ \t]+\w+[ \t]*;"),
    optional=(("optional ",), r"\boptional[ \t]+[\w<>?]+[ \t]+\w+[ \t]*(?:=|,|\))"),
)
# one element of a rule: a repeated name, string, value or group, a group's end or an alternative;
# a name or a string stands apart (a Python assignment `OWS = r"[ \t]*"` writes one against the other)
_ABNF_ELEMENT = (r"(?:\d*\*\d*|\d+)?(?:[A-Za-z][A-Za-z0-9-]*|\"[^\"\n]*\"|%[xdb][0-9A-Fa-f]+(?:[.-][0-9A-Fa-f]+)*+|"
                 r"<[^>\n]*>)(?=[ \t)\]/;]|$)|(?:\d*\*\d*|\d+)?[(\[]|[)\]/]")
# a line of the grammar itself, not another language's comment that quotes it (ABNF's comments are `;`)
_ABNF_LINE = r"^(?![ \t]*(?:#|//|/\*|\*|--))[^\n]*?"
_ABNF_FORMS = forms(
    # a whole rule line of ABNF's own elements, apart and among them one of its marks (a Python
    # assignment `OWS = r"[ \t]*"` writes a string against a name; rule names have no `_`)
    rule=(("=",), rf"^[A-Za-z][A-Za-z0-9-]*[ \t]*=/?"
                  rf"(?=[^\n]*(?:%[xdb]|\*|\b(?:ALPHA|DIGIT|HEXDIG|DQUOTE|HTAB|WSP|VCHAR|CRLF|OCTET)\b|[ \t]/[ \t]))"
                  rf"(?:[ \t]*(?:{_ABNF_ELEMENT}))++[ \t]*(?:;[^\n]*)?$"),
    value=(("%x", "%d", "%b"), _ABNF_LINE + r"%(?:x[0-9A-Fa-f]+(?:-[0-9A-Fa-f]+|(?:\.[0-9A-Fa-f]+)+)?|"
                                            r"d\d+(?:-\d+|(?:\.\d+)+)?|"
                               r"b[01]+(?:-[01]+)?)\b"),
    repetition=(("*",), _ABNF_LINE + r"(?<![\w*/])\d*\*\d*[A-Za-z(\"%\[]"),
    core_rule=(("ALPHA", "DIGIT", "HEXDIG", "DQUOTE", "HTAB", "WSP", "VCHAR", "CRLF", "OCTET"),
               _ABNF_LINE + r"\b(?:ALPHA|DIGIT|HEXDIG|DQUOTE|HTAB|WSP|LWSP|VCHAR|CRLF|OCTET)\b"),
    increment=(("=/",), r"^[A-Za-z][\w-]*[ \t]*=/"),
)
_TABLEGEN_FORMS = forms(
    multiclass=(("defm ", "multiclass "), r"^[ \t]*(?:defm[ \t]++\w*+[ \t]*+:[ \t]*\w+|"
                                          r"multiclass[ \t]++\w++[ \t]*[<{])"),
    definition=(("def ",), r"^[ \t]*def[ \t]+\w+[ \t]*:[ \t]*\w+[ \t]*(?:<|;|\{|,)"),
    template_class=(("class ",), r"^[ \t]*class[ \t]+\w+[ \t]*<[^>\n]*\b(?:int|bit|bits<\d+|string|list<\w+|dag|code)"
                                 r"[ \t]+\w+"),
    include=(("include \"",), r"^include[ \t]+\"[\w/.-]+\.td\""),
    let_in=(("let ",), r"^[ \t]*let[ \t]+\w+[ \t]*=[^\n]*\bin[ \t]*(?:\{|(?:def|defm|let|foreach)\b)"),
    dag=(("(outs", "(ins"), r"\((?:outs|ins)\b"),
    bang=(("!",), r"!(?:strconcat|cast|if|foreach|eq|ne|and|or|add|shl|srl|listconcat|con|subst|size|empty|head|"
                  r"tail|isa|interleave|getdagop|foldl|filter|tolower|toupper)(?:<[^>\n]*>)?\("),
)
_SOONG_FORMS = forms(
    # a module under its type (`cc_library {`), its name first: a JavaScript object has no such opening
    named_module=(("name:",), r"^(?:[a-z][a-z0-9]*(?:_[a-z0-9]+)+|genrule|filegroup|apex|license|package)[ \t]*\{[ \t]*"
                              r"\n(?:[ \t]*(?://[^\n]*)?\n){0,20}[ \t]+name:[ \t]*\"[^\"\n]+\"[ \t]*,"),
    list_property=(("srcs:", "libs:", "cflags:", "defaults:", "dirs:", "visibility:", "required:", "available:",
                    "data:"),
                   r"^[ \t]+(?:srcs|exclude_srcs|shared_libs|static_libs|whole_static_libs|header_libs|libs|cflags|"
                   r"cppflags|defaults|export_include_dirs|local_include_dirs|resource_dirs|visibility|required|"
                   r"apex_available|data):[ \t]*\["),
)
_HXML_FORMS = forms(
    class_path=(("-cp ", "-p ", "--class-path "), r"^(?:-cp|-p|--class-path)[ \t]+\S"),
    main=(("-main ", "--main ", "-m "), r"^(?:-main|--main|-m)[ \t]+[\w.]+[ \t]*$"),
    library=(("-lib ", "--library ", "-L "), r"^(?:-lib|--library|-L)[ \t]+[\w:.-]+"),
    target=(("-js", "-swf", "-neko", "-php", "-cpp", "-cs", "-java", "-jvm", "-python", "-lua", "-hl", "--interp",
             "--run"),
            r"^--?(?:js|swf|neko|php|cpp|cs|java|jvm|python|lua|hl|cppia)[ \t]+\S|^--(?:interp|run)\b"),
    define=(("-D ", "--define "), r"^(?:-D|--define)[ \t]+\w[\w-]*(?:=\S*)?[ \t]*$"),
    flag=(("--next", "--each", "-dce", "-debug", "--macro", "--no-traces", "--no-inline", "--times", "-cmd"),
          r"^(?:--next|--each|--?dce[ \t]+(?:full|std|no)|--?debug|--macro[ \t]|--no-traces|--no-inline|--times|"
          r"--?cmd[ \t])"),
)
_BST_FORMS = forms(
    entry=(("ENTRY",), r"^ENTRY[ \t]*(?:\{|$)"),
    function=(("FUNCTION", "MACRO"), r"^(?:FUNCTION|MACRO)[ \t]*\{[ \t]*[\w.]+[ \t]*\}"),
    declaration=(("INTEGERS", "STRINGS"), r"^(?:INTEGERS|STRINGS)[ \t]*\{"),
    command=(("EXECUTE", "ITERATE", "REVERSE", "READ", "SORT"),
             r"^(?:EXECUTE|ITERATE|REVERSE)[ \t]*\{[ \t]*[\w.]+[ \t]*\}|^(?:READ|SORT)[ \t]*$"),
    builtin=(("$",), r"\b(?:write|newline|pop|swap|duplicate|skip|empty|missing|width|text\.length|text\.prefix|"
                     r"substring|purify|call\.type|cite|format\.name|add\.period|change\.case|num\.names|quote|"
                     r"preamble|top|warning|int\.to\.str|int\.to\.chr|chr\.to\.int|stack|global\.max)\$"),
)
_WOW_TOC_FORMS = forms(
    interface=(("## Interface",), r"^##[ \t]*Interface(?:-\w+)?:[ \t]*\d{5,6}(?:[ \t]*,[ \t]*\d{5,6})*[ \t]*$"),
    metadata=(("## ",), r"^##[ \t]*(?:Title|Notes|Author|Version|SavedVariables|SavedVariablesPerCharacter|"
                        r"Dependencies|RequiredDeps|OptionalDeps|LoadOnDemand|DefaultState|IconTexture|"
                        r"AddonCompartmentFunc|X-[\w-]+)(?:-\w+)?[ \t]*:"),
    files=((".lua", ".xml"), r"^[\w\\/. -]+\.(?:lua|xml)[ \t]*$"),
)
_GCODE_FORMS = forms(
    linear=(("G0", "G1"), r"^(?:N\d+[ \t]*)?G0?[01](?![0-9])[ \t]*(?:[XYZEFABC][ \t]*-?[\d.]+[ \t]*)+"),
    arc=(("G2", "G3", "G02", "G03"), r"^(?:N\d+[ \t]*)?G0?[23](?![0-9])[ \t]*(?:[XYZIJKRF][ \t]*-?[\d.]+[ \t]*)+"),
    setup=(("G1", "G2", "G4", "G5", "G8", "G9"),
           r"^(?:N\d+[ \t]*)?G(?:17|18|19|20|21|28|40|49|54|55|80|90|91|92|94)\b"),
    machine=(("M",), r"^(?:N\d+[ \t]*)?M\d{1,3}\b(?:[ \t]*[SPTIRE][ \t]*-?[\d.]+)*[ \t]*(?:;[^\n]*|\([^)\n]*\))?$"),
    tool=(("T",), r"^(?:N\d+[ \t]*)?T\d+\b"),
)
_CSOUND_SCORE_FORMS = forms(
    note=(("i",), r"^[ \t]*i[ \t]*(?:\d+(?:\.\d+)?|\"\w+\")[ \t]+[\d.+<>^-]+[ \t]+[\d.+<>^-]+"),
    table=(("f",), r"^[ \t]*f[ \t]*\d+[ \t]+[\d.]+[ \t]+-?\d+[ \t]+-?\d+"),
    tempo=(("t",), r"^[ \t]*t[ \t]+0[ \t]+\d+"),
    end=(("e", "s"), r"^[ \t]*[es][ \t]*(?:;[^\n]*)?$"),
)
_GENSHI_FORMS = forms(
    namespace=(("genshi.edgewall.org", "purl.org/kid"),
               r"xmlns:py=\"http://(?:genshi\.edgewall\.org/|purl\.org/kid/ns#)\""),
    directive=(("py:",), r"\bpy:(?:for|if|choose|when|otherwise|def|match|with|replace|strip|content|attrs|extends|"
                         r"layout)=\""),
    include=(("xi:include",), r"<xi:include[ \t]+href="),
    expression=(("${",), r"\$\{[^}\n]+\}"),
)
_CFC_FORMS = forms(
    component=(("<cfcomponent", "<CFCOMPONENT", "component"), r"<(?:cfcomponent|CFCOMPONENT)\b|"
                                                              r"^[ \t]*component\b[^{;\n]*\{"),
    # a function as a tag or as script with its access or type (PHP's `public function` has neither a
    # component nor a property)
    function=(("<cffunction", "<CFFUNCTION", "function "),
              r"<(?:cffunction|CFFUNCTION)[ \t]++[^>\n]*?\b(?:name|NAME)[ \t]*=|"
              r"^[ \t]*(?:public|private|remote|package)[ \t]+(?:[\w.]+[ \t]+)?function[ \t]+\w+[ \t]*\("),
    property_=(("property ",), r"^[ \t]*property[ \t]+(?:name[ \t]*=[ \t]*\"?\w+|\w+[ \t]+\w+[ \t]*[;=])"),
)
# each tag with what it holds (a syntax file's patterns name the tags alone: `"\\c<cfif"`)
_CFM_FORMS = forms(
    set_=(("<cfset", "<CFSET"), r"<(?:cfset|CFSET)[ \t]+[\w\"]"),
    output=(("<cfoutput", "<CFOUTPUT"), r"<(?:cfoutput|CFOUTPUT)(?:[ \t]+\w+[ \t]*=|[ \t]*>)"),
    condition=(("<cfif", "<cfelse", "<cfswitch", "<CFIF", "<CFELSE", "<CFSWITCH"),
               r"<(?:cf(?:if|elseif)|CF(?:IF|ELSEIF))[ \t]+\S|<(?:cfelse|CFELSE)[ \t]*/?>|"
               r"<(?:cfswitch|CFSWITCH)[ \t]+(?:expression|EXPRESSION)[ \t]*="),
    query=(("<cfquery", "<CFQUERY"), r"<(?:cfquery|CFQUERY)[ \t]+\w+[ \t]*="),
    loop=(("<cfloop", "<CFLOOP"), r"<(?:cfloop|CFLOOP)[ \t]+\w+[ \t]*="),
    include=(("<cfinclude", "<cfparam", "<cflocation", "<cfmodule", "<cfimport", "<CFINCLUDE", "<CFPARAM"),
             r"<(?:cf(?:include|param|location|module|import)|CF(?:INCLUDE|PARAM))[ \t]+\w+[ \t]*="),
    expression=(("#",), r"#[A-Za-z_][\w.]*(?:\([^)#\n]*\))?#"),
)
_TRACEBACK_FORMS = forms(
    opening=(("Traceback (most recent call last):",), r"\A(?:[ \t]*\n)*Traceback \(most recent call last\):[ \t]*$"),
    frame=(("File \"",), r"^[ \t]+File \"[^\"\n]+\", line \d+(?:, in \S+)?[ \t]*$"),
    exception=(("Error", "Exception", "Exit", "Interrupt", "Warning", "Iteration"),
               r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Iteration)(?::[^\n]*)?$"),
)
_MQL_TYPE = r"(?:int|double|bool|string|color|datetime|ENUM_\w+|ulong|long|uint|float|char|short|ushort|uchar)"
_MQL_FORMS = forms(
    property_=(("#property",), r"^#property[ \t]+(?:copyright|link|version|strict|description|indicator_\w+|"
                               r"script_show_inputs|script_show_confirm|tester_\w+|icon|library|stacksize)\b"),
    handler=(("OnInit", "OnTick", "OnStart", "OnCalculate", "OnDeinit", "OnTimer", "OnChartEvent", "OnTrade",
              "OnTester", "OnBookEvent"),
             r"\b(?:int|void|double)[ \t]+On(?:Init|Deinit|Tick|Start|Calculate|Timer|ChartEvent|Trade|"
             r"TradeTransaction|Tester|BookEvent)[ \t]*\("),
    # an input parameter (MQL4's `extern` with its default: C's declares without one)
    input_=(("input ", "extern "), rf"^[ \t]*s?input[ \t]+{_MQL_TYPE}[ \t]+\w+(?:[ \t]*=[^;\n]+)?;|"
                                   rf"^[ \t]*extern[ \t]+{_MQL_TYPE}[ \t]+\w+[ \t]*=[^;\n]+;"),
    constant=(("_Symbol", "_Point", "_Digits", "PERIOD_", "MODE_", "OP_BUY", "OP_SELL", "ORDER_TYPE_",
               "TRADE_ACTION_", "SYMBOL_", "Symbol()"),
              r"\b(?:_Symbol|_Point|_Digits|PERIOD_(?:CURRENT|M\d+|H\d+|D1|W1|MN1)|MODE_(?:SMA|EMA|SMMA|LWMA|MAIN|"
              r"SIGNAL|UPPER|LOWER|TRADES|HISTORY|ASK|BID|POINT|DIGITS|SPREAD)|OP_(?:BUY|SELL)\w*|ORDER_TYPE_\w+|"
              r"TRADE_ACTION_\w+|SYMBOL_\w+)\b|\bSymbol\(\)"),
    trade=(("Order", "Position", "iMA", "iRSI", "iMACD", "iCustom", "CopyBuffer", "SetIndexBuffer",
            "IndicatorBuffers", "MarketInfo", "Account", "SymbolInfo", "NormalizeDouble"),
           r"\b(?:OrderSend|OrderSelect|OrdersTotal|OrderClose|OrderModify|PositionSelect|PositionsTotal|iMA|iRSI|"
           r"iMACD|iCustom|CopyBuffer|SetIndexBuffer|IndicatorBuffers|MarketInfo|AccountBalance|AccountInfo\w*|"
           r"SymbolInfo\w+|NormalizeDouble)[ \t]*\("),
)
_IGOR_FORMS = forms(
    pragma=(("#pragma", "#include <"), r"^#pragma[ \t]+(?:rtGlobals|TextEncoding|IgorVersion|ModuleName|"
                                       r"IndependentModule|rtFunctionErrors|DefaultTab|version)[ \t]*=|"
                                       r"^#include[ \t]+<\w+(?:[ ]\w+)+>"),   # a procedure file's name has blanks
    function=(("Function", "Proc", "Macro", "Window"),
              r"^[ \t]*(?:(?:static|override|threadsafe)[ \t]+)*(?:Function|Proc|Macro|Window)(?:/[A-Za-z]+)*[ \t]+"
              r"\w+[ \t]*\("),
    end=(("End",), r"^End[ \t]*(?://[^\n]*)?$"),
    declaration=(("NVAR", "SVAR", "DFREF", "WAVE", "Wave", "Variable", "String"),
                 r"^[ \t]*(?:NVAR|SVAR|DFREF|WAVE|Wave)(?:/[A-Za-z]+)*[ \t]+\w+|"
                 r"^[ \t]*(?:Variable|String)/[A-Za-z]+[ \t]+\w+|^[ \t]*Variable[ \t]+\w+[ \t]*(?:[=,]|$)"),
    operation=(("Make", "Duplicate", "Redimension", "Display", "AppendToGraph", "ModifyGraph", "SetDataFolder",
                "NewDataFolder", "KillWaves", "SetScale", "DoWindow"),
               r"^[ \t]*(?:Make|Duplicate|Redimension|Display|AppendToGraph|ModifyGraph|SetDataFolder|NewDataFolder|"
               r"KillWaves|SetScale|DoWindow)(?:/[A-Za-z]+(?:=[^\s/]+)?)*[ \t]+\S"),
)
_IDL_FORMS = forms(
    routine=(("pro ", "PRO ", "Pro ", "function ", "FUNCTION ", "Function "),
             r"(?i:^[ \t]*(?:pro|function)[ \t]+[\w:]+[ \t]*(?:,[ \t]*\w|$))"),
    compile_opt=(("compile_opt", "COMPILE_OPT"), r"(?i:^[ \t]*compile_opt[ \t]+\w)"),
    block_end=(("endif", "endelse", "endrep", "endcase", "endswitch", "ENDIF", "ENDELSE", "ENDREP", "ENDCASE",
                "ENDSWITCH"),
               r"(?i:\b(?:endif[ \t]+else[ \t]+begin|endelse|endrep|endcase|endswitch)\b)"),
    for_=(("for ", "FOR "), r"(?i:^[ \t]*for[ \t]+\w+[ \t]*=[^,\n]+,[^\n]+\bdo\b)"),
    # a procedure called with its arguments after a comma (`print, x`, `plot, x, y, /xlog`)
    call=((",",), r"(?i:^[ \t]*(?:print|printf|plot|oplot|help|message|on_error|catch|openr|openw|openu|readf|readu|"
                  r"writeu|free_lun|window|device|loadct|contour|tvscl|erase|xyouts|surface|restore|ptr_free|"
                  r"obj_destroy|widget_control|spawn)[ \t]*,)"),
    keyword=(("/",), r",[ \t]*/[A-Za-z_]\w*\b"),
)
_REDCODE_FORMS = forms(
    directive=((";redcode", ";name", ";author", ";strategy", ";assert"),
               r"^;(?:redcode(?:-\w+)?|name|author|strategy|assert)\b"),
    instruction=(("dat", "spl", "djn", "jmz", "jmn", "seq", "sne", "slt", "DAT", "SPL", "DJN", "JMZ", "JMN", "SEQ",
                  "SNE", "SLT"),
                 r"(?i:^[ \t]*(?:\w+[ \t:]+)?(?:dat|spl|djn|jmz|jmn|seq|sne|slt)(?:\.(?:ab|ba|a|b|f|x|i))?[ \t]+"
                 r"[#$@<>*{}]?-?[\w+*/-]+)"),
    modifier=((".",), r"(?i:\b(?:mov|add|sub|mul|div|mod|jmp|cmp|seq|sne|slt|djn|jmz|jmn|spl|dat)\."
                      r"(?:ab|ba|a|b|f|x|i)\b)"),
    addressing=((",",), r"(?i:^[ \t]*(?:\w+[ \t:]+)?(?:mov|add|sub|jmp|djn|spl|jmz|jmn|cmp|seq|sne)(?:\.\w+)?[ \t]+"
                        r"[#@<>*{}$]-?\w+[ \t]*,[ \t]*[#@<>*{}$]-?\w+)"),
    end=(("end", "END", "End"), r"(?i:^[ \t]*end(?:[ \t]+\w+)?[ \t]*(?:;[^\n]*)?$)"),
)
_BLITZMAX_FORMS = forms(
    strict=(("Strict",), r"^(?:SuperStrict|Strict)[ \t]*(?:'[^\n]*)?$"),
    module=(("Framework ", "Import "), r"^(?:Framework|Import)[ \t]+(?:brl|pub|maxgui|bah|sdl|mky|zeke|bmx)\.\w+"),
    typed=((":",), r"^[ \t]*(?:Local|Global|Const|Field)[ \t]+\w+[ \t]*:[ \t]*\w+"),
    block_end=(("End", "Wend"), r"^[ \t]*(?:End[ \t]*(?:Type|Method|Function|Rem|If|Select|While)|Wend|EndType|"
                                r"EndMethod|EndFunction)\b"),
    method=(("Method ",), r"^[ \t]*Method[ \t]+\w+[ \t]*(?::[ \t]*\w+[ \t]*)?\("),
)
_INFORM7_FORMS = forms(
    title=(("\" by ",), r"\A(?:[ \t]*\n)*\"[^\"\n]+\"[ \t]+by[ \t]+[^\n]+$"),
    extension=(("begins here", "ends here"), r"^[^\n]{1,200}[ \t]+by[ \t]+[^\n]{1,100}[ \t]+(?:begins|ends)[ \t]+"
                                             r"here\.[ \t]*$"),
    # a sentence that makes a thing of a kind (`The Foyer is a room.`), nothing after the kind
    kind=((" is ", " are "), r"^(?:The[ \t]+|A[ \t]+|An[ \t]+)?[\w' -]{1,80}[ \t]+(?:is|are)[ \t]+"
                             r"(?:(?:a|an|some)[ \t]+)?"
                             r"(?:room|container|supporter|door|thing|kind[ \t]+of[ \t]+[\w ]{1,40}|person|device|"
                             r"backdrop|region|scenery)\.(?:[ \t]+\S[^\n]*)?$"),
    # a rule and its first phrase, on its line or indented below (a README's "Before installing:" has none)
    rule=(("Instead of", "Before ", "After ", "Check ", "Carry out", "Report ", "Every turn", "When play"),
          r"^(?:(?:Instead[ \t]+of|Before|After|Check|Carry[ \t]+out|Report)[ \t]+(?:an?[ \t]+actor[ \t]+)?\w+ing\b|"
          r"Every[ \t]+turn|When[ \t]+play[ \t]+(?:begins|ends))\b[^\n:]*:(?:[ \t]*\n[ \t]+|[ \t]+)\S"),
    understand=(("Understand \"",), r"^Understand[ \t]+\"[^\"\n]+\"(?:[ \t]+or[ \t]+\"[^\"\n]+\")*[ \t]+as[ \t]"),
    say=(("say \"",), r"\bsay[ \t]+\"[^\"\[\n]*+\[[^\]\"\n]++\][^\"\n]*+\""),
    heading=(("Volume", "Book", "Part", "Chapter", "Section"),
             r"^(?:Volume|Book|Part|Chapter|Section)[ \t]++(?:(?:\d+|[IVXLC]+)[ \t]*+)?-[ \t]+\S[^\n]*$"),
    include=(("Include ",), r"^Include[ \t]++(?:\([^)\n]*\)[ \t]++)?(?:(?!by[ \t])[\w'-]++[ \t]++){1,12}by[ \t]++"
                            r"[^\n]{1,100}?\.[ \t]*$"),
)
# objdump's disassembly: its header, sections, symbols and instruction lines (one kind of code);
# `objdump -S` puts the source between them, every other line being one of objdump's own
_OBJDUMP_FORMS = forms(
    header=(("file format",), r"^[^\n]*:[ \t]+file format[ \t]+[\w.-]+[ \t]*$"),
    section=(("Disassembly of section",), r"^Disassembly of section[ \t]+\S+:[ \t]*$"),
    code=((">:", ":\t"), r"^[0-9a-f]{4,16}[ \t]+<[^>\n]+>:[ \t]*$|^[ \t]+[0-9a-f]+:\t(?:[0-9a-f]{2}[ ]?)+"),
)
_OBJDUMP_SOURCE = r"^(?![0-9a-f]+[ \t]+<|[ \t]+[0-9a-f]+:|Disassembly of|[^\n]*file format)"
_C_OBJDUMP_FORMS = {**_OBJDUMP_FORMS, **forms(
    c_source=((";", "{", "}", "(", "=", "[", "return"),
              _OBJDUMP_SOURCE + r"[ \t]*(?:return\b[^\n]*;|(?:if|while|for|switch)[ \t]*\(|[{}][ \t]*$|"
                                r"(?:static[ \t]+|const[ \t]+)*(?:int|void|char|long|unsigned|double|float|size_t|"
                                r"struct[ \t]+\w+)[ \t*]+\w+[ \t]*[(;=[])"),
)}
_CPP_OBJDUMP_FORMS = {**_OBJDUMP_FORMS, **forms(
    # C++'s own source lines (a disassembly of C++ names its demangled symbols, `<std::string::size()>`)
    cpp_source=(("::", "template", "namespace", "class ", "std::"),
                _OBJDUMP_SOURCE + r"(?:[ \t]*namespace[ \t]+\w+|[ \t]*class[ \t]+\w+[ \t]*[:{]|[^\n]*?(?:\bstd::\w|"
                                  r"\btemplate[ \t]*<|(?<![\w:])\w+::\w+[ \t]*\([^)\n]*\)[ \t]*(?:const[ \t]*)?\{?$))"),
)}
# an IRC client's log: timestamped messages, joins, parts and actions, and the log's own markers
_IRC_TIME = r"(?:\[?(?:\d{4}-\d{2}-\d{2}[ T])?\d{1,2}:\d{2}(?::\d{2})?\]?)"
_IRC_NICK = r"[@+%&~ ]?[A-Za-z\[\]\\`^{}|_][\w\[\]\\`^{}|-]*"
_IRC_LOG_FORMS = forms(
    message=(("<", "\t"), rf"^{_IRC_TIME}[ \t]+<{_IRC_NICK}>[ \t]+\S|^{_IRC_TIME}\t{_IRC_NICK}\t\S"),
    notice=(("joined", "left", "quit", "Quit", "known as", "topic", "mode"),
            rf"^{_IRC_TIME}[ \t]+(?:-!-|\*\*\*|-->|<--|\*)[ \t]+[^\n]*\b(?:has[ \t]+(?:joined|left|quit)|"
            r"is now known as|changed the topic|[Mm]ode[ /]|Quit|Part)\b"),
    action=(("* ", "*\t"), rf"^{_IRC_TIME}[ \t]+\*[ \t]+{_IRC_NICK}[ \t]+[a-z]"),
    marker=(("--- ", "**** "), r"^---[ \t]+(?:Log opened|Log closed|Day changed)\b|"
                              r"^\*\*\*\*[ \t]+(?:BEGIN|ENDING)[ \t]+"
                              r"LOGGING[ \t]+AT\b"),
)
# an Arch Linux package's .SRCINFO: its base and names, then tab-indented `key = value` fields
_SRCINFO_FORMS = forms(
    base=(("pkgbase = ",), r"^pkgbase = \S+$"),
    name=(("pkgname = ",), r"^pkgname = \S+$"),
    field=(("\t",), r"^\t(?:pkgdesc|pkgver|pkgrel|epoch|url|arch|license|groups|depends|makedepends|checkdepends|"
                   r"optdepends|provides|conflicts|replaces|backup|options|install|changelog|source|noextract|"
                   r"validpgpkeys)(?:_\w+)? = [^\n]*$"),
    checksum=(("sums",), r"^\t(?:md5|sha1|sha224|sha256|sha384|sha512|b2|ck)sums(?:_\w+)? = (?:[0-9a-f]{8,128}|SKIP)$"),
)
# Quattor's Pan: templates, configuration paths, variables, types and functions
_PAN_FORMS = forms(
    template=(("template ",), r"^(?:(?:object|structure|declaration|unique)[ \t]+)?template[ \t]+[\w/.+-]+[ \t]*;"),
    path=(("\"/", "'/"), r"^[ \t]*(?:final[ \t]+)?[\"'](?:/[\w.+{}-]*)+[\"'][ \t]*\??=|^[ \t]*prefix[ \t]+[\"']/"),
    variable=(("variable ",), r"^[ \t]*(?:final[ \t]+)?variable[ \t]+[A-Za-z_]\w*[ \t]*\??="),
    include=(("include ",), r"^[ \t]*include[ \t]+(?:[\"'][\w/.+-]+[\"']|\{)[^\n]*;"),
    type_=(("type ",), r"^[ \t]*type[ \t]+\w+[ \t]*=[ \t]*(?:\{|[\w\[\]]+)"),
    function=(("function ",), r"^[ \t]*function[ \t]+\w+[ \t]*=[ \t]*\{"),
    bind=(("bind ",), r"^[ \t]*bind[ \t]+[\"']/"),
)
# a transcript that opens on a prompt, a command's output after it, and a later prompt after output
# (a shell script writes no prompts; a README that shows a command opens on its title)
_SHELL_PROMPT = r"(?:(?:\([\w.-]+\)[ \t]*)?[\w.-]+@[\w.-]+(?::[^\n$#]*)?[$#]|\$)[ \t]+[\w./~-]"
_BASH_SESSION_FORMS = forms(
    opening=(("$ ",), rf"\A(?:[ \t]*\n)*{_SHELL_PROMPT}"),
    output=(("$ ",), rf"^{_SHELL_PROMPT}[^\n]*\n(?!{_SHELL_PROMPT})[^\n$#]"),
    later_prompt=(("$ ",), rf"^(?!{_SHELL_PROMPT})[^\n]+\n{_SHELL_PROMPT}"),
)
_PYTHON_CONSOLE_FORMS = forms(
    opening=((">>> ",), r"\A(?:[ \t]*\n)*>>> \S"),
    output=((">>> ",), r"^>>> [^\n]*\n(?!>>> |\.\.\. )[^\n]"),
    later_prompt=((">>> ",), r"^(?!>>> |\.\.\. )[^\n]+\n>>> "),
)
# Blitz3D and BlitzPlus: typed by sigils (`x%`, `y#`, `s$`) and `.Type`, where BlitzMax writes `:Int`
_BLITZBASIC_FORMS = forms(
    graphics=(("Graphics",), r"^[ \t]*Graphics(?:3D)?[ \t]+\d+[ \t]*,[ \t]*\d+"),
    sigil_variable=(("Global ", "Local ", "Dim ", "Const "),
                    r"^[ \t]*(?:Global|Local|Dim|Const)[ \t]+\w+(?:[%#$]|\.\w+)(?:[ \t]*[=(,]|[ \t]*(?:;[^\n]*)?$)"),
    typed_function=(("Function ",), r"^[ \t]*Function[ \t]+\w+(?:[%#$]|\.\w+)[ \t]*\("),
    each=(("Each ",), r"\bFor[ \t]+\w+\.\w+[ \t]*=[ \t]*Each[ \t]+\w+"),
    field=(("Field ",), r"^[ \t]*Field[ \t]+\w+[%#$]?(?:\.\w+)?(?:[ \t]*,[ \t]*\w+[%#$]?(?:\.\w+)?)*[ \t]*"
                        r"(?:;[^\n]*)?$"),
    frame=(("Flip", "Cls", "RenderWorld", "UpdateWorld", "BackBuffer"),
           r"^[ \t]*(?:Flip|Cls|RenderWorld|UpdateWorld|SetBuffer[ \t]+BackBuffer\(\))\b"),
)
# LambdaMOO's verbs: programs for an object's verb, verb calls on MOO objects, the core's utilities
_MOOCODE_FORMS = forms(
    program=(("@program", "@verb", "@prop"), r"^@(?:program|verb|prop(?:erty)?)[ \t]+[#$]?[\w.-]+"),
    verb_call=((":",), r"(?:\bplayer|\bthis|\bcaller|\$\w+|#-?\d+):\w+\("),
    utility=(("_utils",), r"\$\w+_utils\b"),
    block_end=(("endif", "endfor", "endwhile", "endfork", "endtry"),
               r"^[ \t]*(?:endif|endfor|endwhile|endfork|endtry)[ \t]*$"),
    # a verb's arguments in use (a syntax file lists their names alone)
    argument=(("args[", "dobjstr", "iobjstr", "prepstr", "argstr"),
              r"\bargs\[\d+\]|\b(?:dobjstr|iobjstr|prepstr|argstr)[ \t]*(?:[!=]=|[);,\]]|=(?!=))"),
)
# MuPAD: procedures and their `end_` words
_MUPAD_FORMS = forms(
    procedure=(("proc",), r"\bproc[ \t]*\([^)\n]*\)"),
    end=(("end_",), r"\bend_(?:proc|if|for|while|case|repeat|domain)\b"),
    declaration=(("local ", "option "), r"^[ \t]*(?:local|option)[ \t]+\w"),
    assignment=((":=",), r"^[ \t]*\w+[ \t]*:=[ \t]*proc\b"),
)
# SARL's agents: their definitions, event handlers, capacities used and events emitted
_SARL_FORMS = forms(
    definition=(("agent ", "behavior ", "capacity ", "skill ", "event "),
                r"^[ \t]*(?:agent|behavior|capacity|skill|event)[ \t]+\w+(?:[ \t]+(?:extends|implements)[ \t]+"
                r"[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)?[ \t]*\{?[ \t]*$"),
    handler=(("on ",), r"^[ \t]*on[ \t]+[A-Z]\w*(?:[ \t]*\[[^\]\n]*\])?[ \t]*\{"),
    uses=(("uses ",), r"^[ \t]*uses[ \t]+[A-Z]\w*(?:[ \t]*,[ \t]*[A-Z]\w*)*[ \t]*$"),
    occurrence=(("occurrence", "emit", "spawn"), r"\boccurrence\.\w+|\bemit[ \t]*\(|\bspawn[ \t]*\([A-Z]"),
)
# Myghty's Python in templates: its sections, `%` lines of Python with their colons, components
_MYGHTY_FORMS = forms(
    section=(("<%",), r"<%(?:python|args|init|attr|flags|method|def|cleanup|once|global|shared)(?:[ \t]+[^>\n]*)?>"),
    python_line=(("%",), r"^%[ \t]*(?:for|if|elif|else|while|try|except)\b[^\n]*:[ \t]*$"),
    line_end=(("% end",), r"^%[ \t]*end(?:for|if|while|try)\b"),
    component=(("<&",), r"<&\|?[ \t]*[\w/.$]+"),
    request=(("m.",), r"\bm\.(?:write|comp|subexec|scomp|call_next|send_redirect)\("),
)

SIGNATURES = {
    # CORBA's IDL writes interfaces and attributes too, in modules, with `in` arguments
    "Web IDL": signed(("attribute ", "[Exposed", "DOMString", "USVString", "interface mixin", "partial interface",
                       "dictionary ", " includes "), _WEBIDL_FORMS, 2, "\nmodule ", "(in ", " inout ", "(out "),
    "ABNF": signed(("%x", "=/", "ALPHA", "DIGIT", "HEXDIG", "DQUOTE", "CRLF", "VCHAR"), _ABNF_FORMS, 3),
    "TableGen": signed(("defm ", "multiclass ", ".td\"", "(outs", "(ins", "!strconcat", "!cast<", "bits<", "list<",
                        "> {\n", ">;\n"), _TABLEGEN_FORMS, 2),
    "Soong": signed(("name:",), _SOONG_FORMS, 2),
    "Hxml": signed(("-cp ", "-main ", "--main ", "-lib ", "--library ", "--class-path ", "-js ", "--js "),
                   _HXML_FORMS, 3),
    "BST": signed(("ENTRY", "FUNCTION {", "EXECUTE", "ITERATE", "write$", "newline$"), _BST_FORMS, 3),
    "World of Warcraft TOC": signed(("## Interface", "## Title:"), _WOW_TOC_FORMS, 2),
    "g-code": signed(("G0", "G1", "G2", "G9", "M10", "M3", "M8", "M0"), _GCODE_FORMS, 3),
    "Csound Score": signed(("i1 ", "i 1 ", "i1\t", "f1 ", "f 1 ", "i2 ", "f2 ", "i\t1", "f0 ", "i \"", "i\""),
                           _CSOUND_SCORE_FORMS, 2),
    # a template's closing tags are its own, not an example's
    "Genshi": Signature(("genshi.edgewall.org", "purl.org/kid/ns#"), _GENSHI_FORMS, 2, ("```",)),
    # a component before a page: a page may define functions, only a component is one
    "Coldfusion CFC": Signature(("<cfcomponent", "<CFCOMPONENT", "component ", "component{"), _CFC_FORMS, 2, ("```",)),
    "Coldfusion HTML": Signature(("<cfset", "<cfoutput", "<cfif", "<cfquery", "<cfloop", "<cfinclude", "<cfparam",
                                  "<CFSET", "<CFOUTPUT", "<CFIF", "<CFQUERY"), _CFM_FORMS, 2, ("```",)),
    # the whole text one traceback: a report or a log that quotes one is not
    "Python Traceback": Signature(("Traceback (most recent call last):",), _TRACEBACK_FORMS, 3),
    "MQL": signed(("#property", "OnInit", "OnTick", "OnStart", "OnCalculate", "OrderSend", "iCustom"), _MQL_FORMS, 2),
    # Blitz and Visual Basic close a function with `End Function` (IGOR Pro with `End`): one kind more
    "Igor": signed(("#pragma rtGlobals", "#pragma TextEncoding", "#pragma IgorVersion", "#pragma ModuleName", "NVAR ",
                    "SVAR ", "Make/", "SetDataFolder", "\nFunction", "\nEnd"), _IGOR_FORMS, 2, "End Function"),
    "IDL": signed(("pro ", "PRO ", "compile_opt", "COMPILE_OPT", "endelse", "ENDELSE", "print,", "PRINT,",
                   "endif else", "ENDIF ELSE"), _IDL_FORMS, 2),
    "Redcode": signed((";redcode", ";name", ";author", "DAT ", "dat ", "SPL ", "spl ", "DJN ", "djn ", "MOV.", "mov."),
                      _REDCODE_FORMS, 2),
    # Monkey, its successor, writes classes: one kind more
    "BlitzMax": signed(("SuperStrict", "Strict", "Framework ", "Import brl", "Import pub", "Local ", "Field ",
                        "Method "), _BLITZMAX_FORMS, 2, "\nClass "),
    "Bash Session": Signature(("$ ",), _BASH_SESSION_FORMS, 3),
    "Python console session": Signature((">>> ",), _PYTHON_CONSOLE_FORMS, 3),
    # after BlitzMax: a BlitzMax program may write Blitz3D's graphics commands too
    "BlitzBasic": signed(("Graphics", "Global ", "Local ", "Function ", "Each ", "Field "), _BLITZBASIC_FORMS, 2),
    "MOOCode": signed(("@program", "@verb", "player:", "this:", "_utils", "endfork"), _MOOCODE_FORMS, 2),
    "MuPAD": signed(("end_proc", "end_if", "end_for", "end_while"), _MUPAD_FORMS, 2),
    "SARL": signed(("agent ", "behavior ", "capacity ", "skill ", "uses ", "occurrence"), _SARL_FORMS, 2),
    # a template's markup is its own, not an example's; Mason, its Perl twin, writes `$m->` and `my $`
    "Myghty": Signature(("<%python", "<%args>", "<%init>", "<&", "m.write("), _MYGHTY_FORMS, 2,
                        ("```", "$m->", "my $", "% foreach")),
    # C++ source before C: `objdump -S` of C++ writes C's statements too
    "cpp-objdump": Signature(("Disassembly of section",), _CPP_OBJDUMP_FORMS, 4),
    "c-objdump": Signature(("Disassembly of section",), _C_OBJDUMP_FORMS, 4),
    "objdump": Signature(("Disassembly of section",), _OBJDUMP_FORMS, 3),
    # a message after its time (`12:34 <nick>`, `[12:34] <nick>`), a client's notices and markers
    "IRC logs": Signature((*(digit + mark for digit in "0123456789" for mark in (" <", "  <", "  *")), "] <", "-!- ",
                           "\t-->\t", "\t<--\t", "] * ", "--- Log opened", "**** BEGIN LOGGING"), _IRC_LOG_FORMS, 2),
    "Srcinfo": Signature(("pkgbase = ", "pkgname = "), _SRCINFO_FORMS, 3),
    "Pan": signed(("template ",), _PAN_FORMS, 2),
    # English sentences: three kinds, so that a README's "Before installing:" and a heading are not enough
    "Inform 7": signed(("\" by ", "Understand \"", "Instead of ", "When play begins", "Every turn", "begins here",
                        "is a room", "is a kind of", "Carry out ", "say \""), _INFORM7_FORMS, 3),
}
