"""General-purpose, functional and verification languages that neither content model names, each
by the forms its own documentation prescribes (a table of quarry.snapshot.signatures): APL,
AspectJ, Boogie, Ceylon, Clean, CodeQL, Fantom, F*, Futhark, Golo, Koka, Lasso, Limbo, literate
Haskell, Nemerle, Reason and Xtend.

Each is told from the language it borrows from by what that one never writes: AspectJ's
`pointcut` and advice (never Java's), Xtend's typed `val String x` and `«»` templates (never
Java's or Scala's), Ceylon's `shared`/`satisfies`, Fantom's `using sys` without a semicolon and
`new make(`, Clean's `Start` and `import StdEnv` (never Haskell's), F*'s `open FStar.` and
effects (`Tot`, `Lemma`, never OCaml's), Futhark's `[]i32` and `reduce (+)`, Koka's effect rows
(never Kotlin's return types), Reason's `open X;` and `[@attributes]` (never OCaml's or
JavaScript's), Boogie's `procedure`/`havoc` (never Dafny's `method`), Nemerle's `mutable` and
`using Nemerle`, a literate Haskell file's bird tracks and `\\begin{code}` blocks (never a plain
module's).
"""

from __future__ import annotations

from quarry.snapshot.dialects import EXAMPLES, Signature, forms, signed

_APL_FORMS = forms(
    # each glyph in use, never quoted alone as a table of symbols (X11's Compose, a font's list) writes it
    assignment=(("←",), r"[\w⍺⍵⎕∆⍙\])][ \t]*←[ \t]*[^\s\"']"),
    direct_function=(("⍵", "⍺"), r"\{[^{}\n\"]*[⍵⍺][^{}\n\"]*\}"),
    comment=(("⍝",), r"(?:^|[ \t])⍝"),
    system=(("⎕",), r"⎕(?:IO|ML|CT|PP|NS|FX|CR|NL|EX|TS|AV|UCS|DL|SIGNAL|FMT|DR|NC|SE|THIS|CS|PATH|RL|WA|DM|EN|EM|"
                    r"VR|AT|SH|CMD|NA|FIO|JSON|NULL|XML|NEW|WG|TRAP|R|A|D)\b|⎕[ \t]*←"),
    primitive=(("⍴", "⍳", "⌽", "⍉", "⍋", "⍒", "⊃", "⊂", "⌈", "⌊", "∊"),
               r"(?<![\"'<])[⍴⍳⌽⍉⍋⍒⊃⊂⌈⌊∊](?![\"'>])[ \t]*[\w⍵⍺(]"),
    del_=(("∇",), r"^[ \t]*∇"),
    control=((":If", ":For", ":While", ":Namespace", ":EndIf", ":EndFor", ":EndNamespace", ":Select", ":Trap"),
             r"^[ \t]*:(?:If|For|While|Namespace|EndIf|EndFor|EndWhile|EndNamespace|Select|Trap)\b"),
)
_ASPECTJ_FORMS = forms(
    aspect=(("aspect ",), r"^[ \t]*(?:(?:public|privileged|abstract|final|static)[ \t]+)*aspect[ \t]+\w+[ \t]*"
                          r"(?:\{|extends\b|implements\b|per\w+|issingleton|$)"),
    pointcut=(("pointcut ",), r"^[ \t]*(?:(?:public|private|protected|abstract|static)[ \t]+)*pointcut[ \t]+\w+"
                              r"[ \t]*\("),
    advice=(("before", "after", "around"), r"^[ \t]*(?:(?!def\b)[\w<>\[\]]+[ \t]+)?(?:before|after|around)"
                                           r"[ \t]*\([^)\n]*\)[ \t]*(?:returning|throwing|:)"),
    # a pointcut designator with a type pattern (`execution(* com..*(..))`), never a Java call
    designator=(("execution(", "call(", "within(", "withincode(", "cflow(", "cflowbelow(", "initialization("),
                r"\b(?:execution|call|within|withincode|cflow|cflowbelow|staticinitialization|initialization)\("
                r"[^\n]*?(?:\(\.\.\)|\.\.\*|\*[ \t])"),
    join_point=(("thisJoinPoint", "proceed("), r"\bthisJoinPoint(?:StaticPart)?\b|\bproceed\("),
    declare=(("declare ",), r"^[ \t]*declare[ \t]+(?:parents|precedence|warning|error|soft)[ \t]*:"),
)
_BOOGIE_FORMS = forms(
    # its names may hold `.`, `$`, `#` and backquotes (a translated C# method's `HashSet`1.Add$`0`)
    procedure=(("procedure ",), r"^[ \t]*(?:yield[ \t]+|atomic[ \t]+)?procedure[ \t]+(?:\{[^}\n]*\}[ \t]*)*"
                                r"[\w.$#'`~^?]+[ \t]*(?:<[^>\n]*>)?\("),
    implementation=(("implementation ",), r"^[ \t]*implementation[ \t]+(?:\{[^}\n]*\}[ \t]*)*[\w.$#'`~^?]+[ \t]*\("),
    # a map type (`[Ref][Field]int`): keys are types, where Futhark's sizes are names and its elements `i32`
    map_type=((":",), r":[ \t]*(?:\[(?:int|bool|real|[A-Z]\w*)(?:[ \t]*,[ \t]*\w+)*\])+[ \t]*(?:int|bool|real|bv\d+|"
                      r"[A-Z]\w*)\b"),
    havoc=(("havoc ",), r"^[ \t]*havoc[ \t]+\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*;"),
    axiom=(("axiom ",), r"^[ \t]*axiom[ \t]+(?:\{[^}\n]*\}[ \t]*)?[^\n;]*"),
    modifies=(("modifies ",), r"^[ \t]*(?:free[ \t]+)?modifies[ \t]+\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*;"),
    call=(("call ",), r"^[ \t]*call[ \t]+(?:\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*:=[ \t]*)?\w+[ \t]*\([^\n]*\)[ \t]*;"),
    goto=(("goto ",), r"^[ \t]*goto[ \t]+\w+(?:[ \t]*,[ \t]*\w+)+[ \t]*;"),  # a choice of labels: never C's
)
_CEYLON_FORMS = forms(
    shared=(("shared ",), r"\bshared[ \t]+(?:(?:actual|formal|default|abstract|variable|native|sealed|final|late)"
                          r"[ \t]+)*(?:void|class|interface|object|value|function|new|[A-Z]\w*(?:<[^>\n]*>)?\??)"
                          r"[ \t]+\w+[ \t]*(?:\(|=|\{|;)"),
    import_=(("import ceylon.", "module "), r"^import[ \t]+ceylon\.\w+|^module[ \t]+[\w.]+[ \t]+\"[\d.]+\"[ \t]*\{"),
    value=(("value ",), r"^[ \t]*(?:variable[ \t]+)?value[ \t]+\w+[ \t]*(?:=|=>|\{)"),
    satisfies=(("satisfies ",), r"\bsatisfies[ \t]+[A-Z]\w*(?:<[^>\n]*>)?(?:[ \t]*&[ \t]*[A-Z]\w*)*[ \t]*(?:\{|$)"),
    iterable=(("*}", "+}", "*]", "+]"), r"[{\[][A-Z]\w*(?:<[^>\n]*>)?\??[*+][}\]]"),   # `{String*}`, `[Integer+]`
    case_is=(("case (is ", "case(is "), r"\bcase[ \t]*\(is[ \t]+\w+"),
)
_CLEAN_FORMS = forms(
    module=(("module ",), r"^(?:implementation|definition|system)[ \t]+module[ \t]+[\w.]+[ \t]*$"),
    import_=(("import Std", "from Std"), r"^import[ \t]+(?:qualified[ \t]+)?Std\w+|^from[ \t]+Std\w+[ \t]+import\b"),
    start=(("Start",), r"^Start\b[^\n]*(?:=|::)"),
    unique=(("*World", "*File", ":: *"), r"\*(?:World|File)\b|::[ \t]*\*[A-Z]\w*"),
    type_definition=(("::",), r"^::[ \t]*\*?[A-Z]\w*[^\n]*?(?::==|=)"),
    macro=((":==",), r":=="),
    # a lambda's body after a full stop (`>>= \token.`; Haskell writes `->`)
    lambda_=(("\\",), r"(?:>>=|=|\()[ \t]*\\[a-z]\w*(?:[ \t]+[a-z]\w*)*[ \t]*\.(?=[ \t\n])"),
    # a `#` binding before the rest of a function's body (`# (ok, file) = fopen ...`)
    hash_let=(("#",), r"^[ \t]+#!?[ \t]+\(?[a-z]\w*(?:[ \t]*,[ \t]*[a-z]\w*)*\)?[ \t]*=(?!=)"),
)
_CODEQL_FORMS = forms(
    import_=(("import ",), r"^import[ \t]+(?:java|cpp|python|javascript|csharp|go|ruby|swift|rust|actions)[ \t]*$|"
                           r"^(?:private[ \t]+)?import[ \t]+(?:semmle|codeql|experimental|DataFlow|TaintTracking)\b"),
    metadata=(("@kind", "@id ", "@problem.severity", "@precision", "@security-severity"),
              r"^[ \t]*\*[ \t]*@(?:kind|id|problem\.severity|precision|security-severity)[ \t]"),
    predicate=(("predicate ",), r"\bpredicate[ \t]+\w+[ \t]*\("),
    quantifier=(("exists(", "forall(", "forex(", "exists (", "forall (", "any("),
                r"\b(?:exists|forall|forex|any)[ \t]*\([ \t]*[A-Z][\w:]*[ \t]+\w+[ \t]*(?:,[^|\n]*)?\|"),
    select=(("select ", "from "), r"^[ \t]*select[ \t]++[^\n]*?,[ \t]*\"|^from[ \t]+[A-Z][\w:]*[ \t]+[a-z]\w*"
                                  r"(?:[ \t]*,[ \t]*[A-Z][\w:]*[ \t]+[a-z]\w*)*[ \t]*$"),
    module_path=(("DataFlow::", "TaintTracking::", "Expr::"), r"\b(?:DataFlow|TaintTracking)::[A-Z]\w*"),
)
_FANTOM_FORMS = forms(
    using=(("using ",), r"^using[ \t]+(?:\[java\][ \t]*[\w.]+|[a-z]\w*(?:::[A-Z]\w*)?)(?:[ \t]+as[ \t]+\w+)?[ \t]*$"),
    typed_method=(("Void ", "Str ", "Int ", "Bool ", "Obj "),
                  r"^[ \t]*(?:(?:public|private|protected|internal|static|override|virtual|abstract|native)[ \t]+)*"
                  r"(?:Void|Str|Int|Bool|Obj|Float)\??(?:\[\])?[ \t]+\w+[ \t]*\([^)\n]*\)[ \t]*(?:\{|$)"),
    # a function type: typed parameters, an arrow and a type (`|Str s -> Int|`, `|->|`)
    closure_type=(("->",), r"\|(?:[A-Z]\w*\??[ \t]+\w+(?:[ \t]*,[ \t]*[A-Z]\w*\??[ \t]+\w+)*)?[ \t]*->[ \t]*"
                           r"(?:[A-Z]\w*\??)?[ \t]*\|"),
    constructor=(("new make",), r"\bnew[ \t]+make\w*[ \t]*\("),
    runtime=(("Env.cur", "Pod.of", ".toStr", "echo("), r"\bEnv\.cur\b|\bPod\.of\b|\.toStr\b|^[ \t]*echo\("),
)
_FSTAR_FORMS = forms(
    open_=(("open FStar", "module "), r"^open[ \t]+FStar\.\w+|^module[ \t]+[A-Z][\w.]*[ \t]*=[ \t]*FStar\.\w+"),
    effect=(("Tot ", "Lemma", "GTot", "ST ", "Stack ", "Pure ", "Ghost ", "Dv "),
            r"^[ \t]*(?:assume[ \t]+)?val[ \t]+\w+[^\n]*?(?::|->)[ \t]*(?:Tot|GTot|Lemma|ST|Stack|Pure|Ghost|Dv)\b|"
            r"\bLemma[ \t]*\("),
    clause=(("(requires", "(ensures", "(decreases"), r"\((?:requires|ensures|decreases)\b"),
    refinement=(("{",), r"\b\w+[ \t]*:[ \t]*(?:nat|int|pos|list[ \t]+\w+|seq[ \t]+\w+)[ \t]*\{[^}\n]*[<>=][^}\n]*\}"),
    attribute=(("inline_for_extraction", "noextract", "[@@", "irreducible", "unfold let"),
               r"^[ \t]*(?:inline_for_extraction|noextract|irreducible)\b|\[@@|^unfold[ \t]+let\b"),
)
_FUTHARK_FORMS = forms(
    entry=(("entry ",), r"^entry[ \t]+\w+"),
    # one run of brackets from its first (each later bracket would rescan the run)
    array_type=(("]i", "]u", "]f", "]bool"), r"(?<![\]\w])\[\w*\](?:\[\w*\])*+(?:[iu](?:8|16|32|64)|f(?:16|32|64)|"
                                             r"bool)\b"),
    soac=(("reduce", "scan", "hist"), r"\b(?:reduce|reduce_comm|scan|hist)[ \t]+\((?:[-+*]|[iuf]\d+\.(?:[-+*]|max|min)|"
                                      r"\w+)\)[ \t]+\S"),
    loop=(("loop ",), r"\bloop[ \t]+(?:\([^)\n]*\)|\w+)[ \t]*=[^\n]*?\b(?:for|while)\b"),
    # size parameters after a binding's name (`let dot [n] (u: [n]t)`, `val build [n]: [n]t -> bvh`)
    size_parameters=(("[",), r"^[ \t]*(?:let|def|val|entry)[ \t]+[\w'~^]+[ \t]*(?:\[\w+\])+[ \t]*[(:]"),
    lifted_type=(("type~", "type^"), r"^[ \t]*type[~^][ \t]+\w+"),
    test_block=(("-- ==", "-- input", "-- output"), r"^--[ \t]*(?:==[ \t]*$|input[ \t]*\{|output[ \t]*\{|"
                                                    r"compiled[ \t]+input|random[ \t]+input)"),
    module_function=(("i32.", "i64.", "f32.", "f64.", "u8.", "u32."),
                     r"\b(?:[iu](?:8|16|32|64)|f(?:16|32|64))\.(?:sum|maximum|minimum|max|min|sqrt|abs|highest|lowest|"
                     r"i64|i32|f32|f64|u8|exp|log|sin|cos|bool|to_i64|from_fraction|\+|-|\*|/)"),
)
_GOLO_FORMS = forms(
    function=(("function ",), r"^(?:local[ \t]+)?function[ \t]+\w+[ \t]*=[ \t]*\|[^|\n]*\|[ \t]*\{"),
    module=(("module ",), r"^module[ \t]+[\w.]+[ \t]*$"),
    lambda_=(("->",), r"\|\w*(?:[ \t]*,[ \t]*\w+)*\|[ \t]*->"),
    augment=(("augment ", "struct "), r"^(?:augment[ \t]+[\w.]+[ \t]*\{|struct[ \t]+\w+[ \t]*=[ \t]*\{)"),
)
_KOKA_FORMS = forms(
    effect=(("effect ",), r"^(?:pub[ \t]+)?effect[ \t]+(?:fun[ \t]+|ctl[ \t]+|val[ \t]+)?\w+"),
    handler=(("with ", "handler"), r"\bwith[ \t]+(?:handler|fun|ctl|final[ \t]+ctl|val|return)\b|\bhandler[ \t]*\{"),
    # a result type after its effect row (`: console ()`, `: <div,exn> int`): Kotlin writes the type alone
    effect_row=(("):", ") :"), r"\)[ ]?:[ \t]*(?:<[^>\n]*>|total|div|console|io|exn|pure|ndet|alloc<\w+>|st<\w+>)"
                               r"[ \t]+[\w(<]"),
    operation=(("ctl ",), r"^[ \t]*(?:final[ \t]+|raw[ \t]+)?ctl[ \t]+\w+[ \t]*\("),
    import_=(("import std/",), r"^(?:pub[ \t]+)?import[ \t]+std/\w+"),
    module=(("module ",), r"^module[ \t]+[\w/]+[ \t]*$"),
    dashed_function=(("fun ",), r"^[ \t]*(?:pub[ \t]+)?fun[ \t]+[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b"),
    var_assignment=(("var ",), r"^[ \t]*var[ \t]+[a-z][\w-]*[ \t]*:="),
)
_LASSO_FORMS = forms(
    opening=(("<?lasso", "<?Lasso", "[noprocess]", "//lasso"), r"<\?(?:lasso|Lasso)(?i:script)?\b|^[ \t]*\[noprocess\]|"
                                                               r"^[ \t]*\[?//lasso\b"),
    define=(("define ",), r"^[ \t]*define[ \t]+\w+(?:->\w+)?[ \t]*\([^)\n]*\)[ \t]*(?:::[ \t]*\w+[ \t]*)?=>"),
    local=(("local(", "var("), r"\b(?:local|var)\([ \t]*'?\w+"),
    member=(("->",), r"#\w+->\w+"),
    type_=(("define ",), r"^[ \t]*define[ \t]+\w+[ \t]*=>[ \t]*(?:type|trait|thread)[ \t]*\{"),
)
_LIMBO_FORMS = forms(
    implement=(("implement ",), r"^implement[ \t]+\w+[ \t]*;"),
    include=(("include \"",), r"^include[ \t]+\"[\w/]+\.m\"[ \t]*;"),
    declaration=((": module", ": adt", ": con "), r"^[ \t]*\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*:[ \t]*(?:module[ \t]*\{|"
                                                  r"adt[ \t]*\{|con[ \t]+[^;\n]+;)"),
    list_of=(("list of ",), r"\blist[ \t]+of[ \t]+(?:string|int|byte|real|big|ref[ \t]+\w+)\b"),
    load=(("->PATH",), r"\bload[ \t]+\w+[ \t]+\w+->PATH\b"),
    reference=((": ref ",), r"\w[ \t]*:[ \t]*ref[ \t]+\w+(?:->\w+)?"),
)
_LITERATE_HASKELL_FORMS = forms(
    bird_module=(("> module", "> import"), r"^>[ \t]+(?:module|import)[ \t]+(?:qualified[ \t]+)?[A-Z][\w.]*"),
    bird_signature=(("::",), r"^>[ \t]+[a-z_][\w']*(?:[ \t]*,[ \t]*[a-z_][\w']*)*[ \t]+::[ \t]+\S"),
    bird_declaration=(("> data", "> newtype", "> type", "> class", "> instance"),
                      r"^>[ \t]+(?:data|newtype|type|class|instance)[ \t]+[A-Z(]"),
    code_block=(("\\begin{code}",), r"^\\begin\{code\}[ \t]*\n(?:[ \t]*\n)*+(?:module[ \t]+[A-Z]|import[ \t]|"
                                    r"[a-z_][\w']*[ \t]+::[ \t]|data[ \t]+[A-Z]|\{-#)"),
    code_end=(("\\end{code}",), r"^\\end\{code\}[ \t]*$"),
)
_NEMERLE_FORMS = forms(
    using=(("using Nemerle",), r"^using[ \t]+Nemerle(?:\.\w+)*[ \t]*;"),
    mutable=(("mutable ",), r"(?<!let[ \t])\bmutable[ \t]+\w+[ \t]*(?::[ \t]*[\w\[\]]+[ \t]*)?="),
    definition=(("def ",), r"^[ \t]*def[ \t]+\w+[ \t]*(?::[^=\n]+)?=[^\n]*;[ \t]*$"),
    # a method's type after a spaced colon, then its body (F# writes `) : int =`)
    typed_method=((") :",), r"\)[ ]:[ \t]+(?:void|int|string|bool|double|list[ \t]*\[[^\]\n]*\]|"
                            r"array[ \t]*\[[^\]\n]*\])[ \t]*(?:\{|$)"),
    macro=(("macro ",), r"^[ \t]*(?:public[ \t]+)?macro[ \t]+\w+[ \t]*\("),
    splice=(("$\"",), r"\$\"[^\"\n]*\$\w"),
)
_REASON_FORMS = forms(
    open_=(("open ",), r"^[ \t]*open[ \t]+[A-Z][\w.]*;(?!;)"),   # OCaml's top level writes `;;`
    module=(("module ",), r"^[ \t]*module[ \t]+[A-Z]\w*[ \t]*(?::[ \t]*\w+[ \t]*)?=[ \t]*\{"),
    arm=(("=>",), r"^[ \t]*\|[ \t]*(?:[A-Z][\w.]*(?:\([^)\n]*\))?|\([^)\n]*\)|_|`\w+(?:\([^)\n]*\))?)[ \t]*"
                  r"(?:when[ \t][^\n]*)?=>"),
    mutable_field=(("mutable ",), r"^[ \t]*mutable[ \t]+\w+[ \t]*:[ \t]*[^,;\n]+,[ \t]*$"),
    attribute=(("[@",), r"\[@[\w.]+"),
    type_parameter=(("('",), r"\btype[ \t]+\w+\('\w+(?:[ \t]*,[ \t]*'\w+)*\)"),
    interop=(("Js.", "ReasonReact", "ReactDOMRe", "React.string(", "let%"),
             r"\bJs\.(?:log|Promise|Array|String|Dict|Json|Nullable|Option|Console|Float|Int)\b|\bReasonReact\.|"
             r"\bReactDOMRe\.|\bReact\.string\(|\blet%\w+"),
)
_XTEND_FORMS = forms(
    template=(("«",), r"«[^»\n]*»"),
    typed_method=(("def ", "override "), r"^[ \t]*(?:(?:override|public|private|protected|static|dispatch|abstract|"
                                         r"final|"
                             r"synchronized)[ \t]+)*def[ \t]+[\w<>\[\],.?]+[ \t]+\w+[ \t]*\(|"
                             r"^[ \t]*override[ \t]+(?!fun\b|def\b|val\b|var\b)(?:[\w<>\[\],.?]+[ \t]+)?\w+[ \t]*\("),
    typed_value=(("val ", "var "), r"^[ \t]*(?:val|var)[ \t]+[A-Z][\w<>\[\],.?]*[ \t]+\w+[ \t]*="),
    # an extension field (`@Inject extension Builder`; Swift's `extension String {` is its own)
    extension=(("extension ",), r"^import[ \t]+static[ \t]+extension[ \t]|^[ \t]*(?:@\w+[ \t]+|val[ \t]+)+"
                                r"extension[ \t]+[A-Z]\w*"),
    collection=(("newArrayList", "newHashMap", "newLinkedList", "newHashSet", "newImmutableList"),
                r"\bnew(?:ArrayList|HashMap|LinkedList|HashSet|ImmutableList)\("),
)
# Monkey X and Monkey2: their modules, classes, an app's event methods, `Main` and directives
_MONKEY_FORMS = forms(
    import_=(("Import ", "#Import", "Using "), r"^(?:Import[ \t]+(?:mojo2?|monkey|mojox|sdl2)\b|#Import[ \t]+\"|"
                                               r"Using[ \t]+\w+\.\.)"),
    class_=(("Class ",), r"^[ \t]*Class[ \t]+\w+(?:<[^>\n]*>)?(?:[ \t]+(?:Extends|Implements)[ \t]+[\w.]+)?[ \t]*$"),
    app_method=(("Method On",), r"^[ \t]*Method[ \t]+On(?:Create|Update|Render|Suspend|Resume|Close|Back|"
                                r"LoadingRender|Resized|KeyEvent|MouseEvent|WindowEvent)\b"),
    main=(("Function Main",), r"^Function[ \t]+Main[ \t]*(?::[ \t]*Int[ \t]*)?\(\)"),
    directive=(("#If", "#Rem", "#End", "#Else"), r"^#(?:If|Else|End|Rem)\b"),
    block_end=(("End",), r"^[ \t]*End(?:[ \t]+Method)?[ \t]*$"),   # Visual Basic ends with `End Class`, `End Sub`
)
# ooc: declarations as `name: class`, `name: func`, its imports and `:=` bindings
_OOC_FORMS = forms(
    class_=((": class", ": abstract class", ": cover", ": enum", ": interface"),
            r"^[ \t]*\w+[ \t]*:[ \t]*(?:abstract[ \t]+)?(?:class|cover|enum|interface)\b[^\n]*\{"),
    func=((": func", ": static", ": extern", ": abstract", ": final", ": inline"),
          r"^[ \t]*~?\w+[ \t]*:[ \t]*(?:(?:static|extern|abstract|final|inline)[ \t]+)*func\b"),
    import_=(("import ", "use "), r"^(?:import|use)[ \t]+[\w/]+/[\w/]+(?:[ \t]*,[ \t]*[\w/]+)*[ \t]*(?:into[ \t]+\w+)?"
                                 r"[ \t]*$|^use[ \t]+\w+[ \t]*$"),
    typed=((": ",), r"^[ \t]*\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*:[ \t]*(?:Int|String|Bool|Float|Double|Char|SizeT|Pointer|"
                   r"Object|Void|UInt|Octet)\b[ \t]*(?:=|$)"),
)
# Ecere's eC: its modules, classes of its GUI toolkit, properties and watchers
_EC_FORMS = forms(
    import_=(("import ",), r"^(?:public[ \t]+|private[ \t]+)?import[ \t]+(?:static[ \t]+|IMPORT_STATIC[ \t]+)?"
                           r"\"(?:ecere|EDA|ec|ecrt|ecereCOM)\""),
    # a named constant (C writes `#define`)
    define=(("define ",), r"^(?:public[ \t]+|private[ \t]+|static[ \t]+)?define[ \t]+\w+[ \t]*=(?!=)"),
    class_=(("class ",), r"^(?:public[ \t]+|private[ \t]+)?class[ \t]+\w+[ \t]*:[ \t]*(?:Window|GuiApplication|"
                        r"Application|Instance|Thread|Service|Socket|Button|EditBox|ListBox|DataBox)\b"),
    property=(("property ",), r"^[ \t]*(?:public[ \t]+)?property[ \t]+[\w*]+[ \t]+\w+[ \t]*(?:\{|$)"),
    watch=(("watch", "firewatchers"), r"\bwatch[ \t]*\([ \t]*\w+[ \t]*\)|\bfirewatchers\b"),
    member=(("{ this", "{ parent", "{this", "{parent"),
            r"^[ \t]*(?:Window|Button|Label|EditBox|DataBox|ListBox|DropBox|Picture)[ \t]+\w+[ \t]*\{[ \t]*"
            r"(?:this|parent)\b"),
)
# Ioke: prototypes cloned with `mimic`, methods and macros bound as cells, modules loaded by `use`
_IOKE_FORMS = forms(
    mimic=(("mimic",), r"\b[A-Z]\w*[ \t]+mimic\b"),
    method=(("method(", "macro(", "dmacro(", "lecro(", "syntax(", "fnx("),
            r"^[ \t]*\S+[ \t]*=[ \t]*(?:method|macro|dmacro|lecro|syntax|fnx?)\("),
    use=(("use(",), r"^[ \t]*use\([ \t]*\"[\w/.-]+\"[ \t]*\)"),
    cell=(("cell(", "@"), r"\bcell\([ \t]*:|^[ \t]*@\w[\w:?!]*[ \t]*="),
    do_=(("do(",), r"\bdo\([ \t]*$"),
)
# OpenEdge ABL (Progress 4GL): definitions, NO-UNDO, record blocks with their locks, blocks ended by `END.`
_ABL_FORMS = forms(
    define=(("DEFINE ", "DEF ", "define ", "def "),
            r"(?i:^[ \t]*DEF(?:INE)?[ \t]+(?:(?:NEW|SHARED|GLOBAL|PRIVATE|PUBLIC|PROTECTED|STATIC|INPUT|OUTPUT|"
            r"INPUT-OUTPUT|RETURN)[ \t]+)*(?:VAR(?:IABLE)?|TEMP-TABLE|BUFFER|QUERY|FRAME|PARAM(?:ETER)?|STREAM|BUTTON|"
            r"DATASET|DATA-SOURCE|PROPERTY|WORK-TABLE|WORKFILE|IMAGE|MENU|BROWSE|RECTANGLE|SUB-MENU)\b)"),
    no_undo=(("NO-UNDO", "no-undo", "No-Undo"), r"(?i:\bNO-UNDO\b)"),
    record=(("FOR ", "for ", "FIND ", "find ", "For ", "Find "),
            r"(?i:^[ \t]*(?:FOR[ \t]+(?:EACH|FIRST|LAST)|FIND(?:[ \t]+(?:FIRST|LAST|NEXT|PREV))?)[ \t]++[\w-]++[^\n]*?"
            r"\b(?:NO-LOCK|EXCLUSIVE-LOCK|SHARE-LOCK|NO-ERROR|NO-WAIT)\b)"),
    block_end=(("END", "end", "End"), r"(?i:^[ \t]*END[ \t]+(?:PROCEDURE|FUNCTION|CLASS|METHOD|CASE|CONSTRUCTOR|"
                                      r"DESTRUCTOR|INTERFACE|GET|SET|TRIGGERS)[ \t]*\.)"),
    procedure=(("PROCEDURE ", "procedure ", "Procedure "), r"(?i:^[ \t]*PROCEDURE[ \t]++[\w-]++[^\n]*:[ \t]*$)"),
    preprocessor=(("&", "{&"), r"(?i:^[ \t]*&(?:SCOPED-DEFINE|GLOBAL-DEFINE|ANALYZE-SUSPEND|ANALYZE-RESUME)\b)|"
                               r"\{&[\w-]+\}"),
)

SIGNATURES = {
    "APL": signed(("←", "⍝", "⍵", "⎕", "∇"), _APL_FORMS, 2),
    "AspectJ": signed(("aspect ", "pointcut ", "thisJoinPoint", "proceed(", "declare parents", "declare precedence"),
                      _ASPECTJ_FORMS, 2),
    "Boogie": signed(("procedure ", "implementation ", "havoc ", "axiom "), _BOOGIE_FORMS, 2),
    "Ceylon": signed(("shared ", "import ceylon.", "satisfies ", "case (is "), _CEYLON_FORMS, 2),
    "Clean": signed(("import Std", "from Std", "\nStart", "implementation module", "definition module", "*World"),
                    _CLEAN_FORMS, 2),
    "CodeQL": signed(("@kind", "predicate ", "import java", "import cpp", "import python", "import javascript",
                      "import csharp", "import go", "import semmle", "import codeql", "DataFlow::"), _CODEQL_FORMS, 2),
    "Fantom": signed(("using sys", "using [java]", "new make", "Void ", "Str ", ".toStr", "Env.cur"), _FANTOM_FORMS, 2),
    "FStar": signed(("open FStar", "Lemma", "Tot ", "(requires", "(ensures", "noextract", "inline_for_extraction"),
                    _FSTAR_FORMS, 2),
    "Futhark": signed(("entry ", "]i32", "]i64", "]f32", "]f64", "]u8", "reduce (", "scan (", "-- ==", "loop ", "[n]",
                       "type~"), _FUTHARK_FORMS, 2),
    "Golo": signed(("= |", "augment "), _GOLO_FORMS, 2),
    "Koka": signed(("effect ", "ctl ", "import std/", "with handler", "with fun", "with ctl", "fun "), _KOKA_FORMS, 2),
    # a page's markup around its code is its own, not an example's
    "Lasso": Signature(("<?lasso", "<?Lasso", "[noprocess]", "//lasso", "local(", "var("), _LASSO_FORMS, 2, ("```",)),
    "Limbo": signed(("implement ", ": module", ": adt", "list of string", "->PATH"), _LIMBO_FORMS, 2),
    # its own `\begin{code}` is a LaTeX environment: the examples' marks do not put it in doubt
    "Literate Haskell": Signature(("\n> ", "\\begin{code}"), _LITERATE_HASKELL_FORMS, 2,
                                  ("open import", ": Set", "```")),   # Agda's, and a Markdown quote
    "Monkey": signed(("Import mojo", "Import monkey", "#Import", "Using ", "\nClass ", "Method On", "Function Main"),
                     _MONKEY_FORMS, 2),
    "Ooc": signed((": class", ": func", ": cover", ": static func", ": extern func"), _OOC_FORMS, 2),
    "eC": signed(("import \"ecere\"", "import \"ec\"", "import \"EDA\"", "IMPORT_STATIC", ": Window",
                  ": GuiApplication", "property ", "\ndefine ", "public define "),
                 _EC_FORMS, 2),
    "Ioke": signed(("mimic", "= method(", "=method(", "dmacro(", "use(\""), _IOKE_FORMS, 2),
    "OpenEdge ABL": signed(("NO-UNDO", "no-undo", "No-Undo", "DEFINE VARIABLE", "DEF VAR", "define variable",
                            "NO-LOCK", "no-lock", "END PROCEDURE", "end procedure", "{&", "&SCOPED-DEFINE",
                            "&ANALYZE-SUSPEND"), _ABL_FORMS, 2),
    "Nemerle": signed(("using Nemerle", "mutable "), _NEMERLE_FORMS, 2),
    # ReScript's decorators open a line (`@react.component`): one kind more
    "ReasonML": signed(("[@", "ReasonReact", "ReactDOMRe", "Js.log", "module ", "| Some(", "| None"), _REASON_FORMS, 2,
                       "\n@react", "\n@module", "\n@val", "\n@genType", "->Belt", "->Js."),
    # its templates are `'''` strings: not an example's mark here
    "Xtend": Signature(("«", "val ", "override ", "extension ", "newArrayList", "newHashMap"), _XTEND_FORMS, 2,
                       tuple(mark for mark in EXAMPLES if mark != "'''")),
}
