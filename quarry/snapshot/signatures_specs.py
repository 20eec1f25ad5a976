"""Proof, model, query and configuration languages that neither content model names, each by the
forms its own documentation prescribes (a table of quarry.snapshot.signatures): Lean (3) and
Lean 4, Isabelle, Alloy, Promela, PDDL, Modelica, AMPL, Kusto and Cypher queries, Jsonnet,
Varnish's VCL, Zeek, BitBake recipes, Sieve mail filters, Augeas lenses, Minecraft functions, the
computer algebra of GAP and Macaulay2, Asymptote and NCL graphics, Singularity container recipes,
TypoScript, USD scenes, Rego policies and Pig Latin.

Lean 3 and Lean 4 share their commands (`theorem`, `#check`, `namespace`); Lean 3 is told by
its `begin ... end` proofs, `λ x,` and mathlib's lower-case module paths, Lean 4 by `:= by`,
`fun x =>`, `where` and its capitalised imports. Near languages kept apart: Coq's capitalised
`Theorem`, Ada's `end Name;` (Modelica), Lua's `local` (Jsonnet), Verilog's `module` (Zeek),
Gentoo's ebuilds (BitBake: `VAR="..."` without spaces, `src_install`), Perl's `require "x";`
(Sieve), OCaml's `module X =` (Augeas), SQL's `MATCH (col) AGAINST` (Cypher), Markdown tables
(Kusto's `| where`).
"""

from __future__ import annotations

from quarry.snapshot.dialects import forms, signed

_LEAN3_FORMS = forms(   # its own forms only: a Lean 4 file writes the commands both share
    proof_block=(("begin",), r"^[ \t]*begin[ \t]*\n(?:[^\n]*\n){0,200}?[ \t]*end\b"),
    lambda_=(("λ",), r"λ[ \t]*[\w⟨( ]+[^,\n]*,"),
    import_=(("import ",), r"^import[ \t]+(?:data|tactic|algebra|topology|analysis|order|logic|init|"
                           r"category_theory|linear_algebra|measure_theory|set_theory|number_theory|group_theory|"
                           r"ring_theory|field_theory|types|hit|homotopy)\."),
    variables=(("variables", "parameters", "universe"), r"^(?:variables|parameters)[ \t]+[({\[][^)}\]\n]*[ \t]:[ \t]|"
                                                         r"^universes?[ \t]+\w+(?:[ \t]+\w+)*[ \t]*$"),
    # an equation's arm as Lean 3 writes it (Lean 4's `| 0 => 1`), its type classes' snake case
    equation=(("| ",), r"^[ \t]*\|[ \t]+[^\n]*[ \t]:=[ \t]"),
    type_class=(("has_",), r"\bhas_(?:add|mul|zero|one|le|lt|neg|sub|div|mem|coe|to_string|repr|inv|pow|dvd|mod|"
                           r"append|insert|emptyc|well_founded)\b"),
    # a tactic with its own arguments (`cases h with x hx,`, `simp [f],`), not a sentence starting with "cases"
    tactic=(("assume", "intro", "cases", "induction", "simp", "exact", "rw"),
            r"^[ \t]+(?:(?:cases|induction)[ \t]+\w+[ \t]+with\b|simp(?:[ \t]+only)?[ \t]*\[|rw[ \t]*[\[←]|"
            r"exact[ \t]+[⟨(]|intros?(?:[ \t]+\w+)*[ \t]*,|assume[ \t]+\w+[ \t]*:)"),
)
_LEAN4_FORMS = forms(
    # a type after ` : ` or a body after `:=` (Python's `def f(x):` writes neither)
    declaration=(("theorem", "lemma", "def", "instance", "example", "abbrev"),
                 r"^(?:protected[ \t]+|private[ \t]+|noncomputable[ \t]+)*(?:theorem|"
                 r"lemma|def|instance|example|abbrev)\b[^\n]*(?:[ \t]:[ \t]|:=)"),
    command=(("#check", "#eval", "#print", "#reduce"), r"^#(?:check|eval|print|reduce)[ \t]"),
    namespace=(("namespace",), r"^namespace[ \t]+[\w.]+[ \t]*$"),
    by=((":= by",), r":=[ \t]*by\b"),
    fun=(("fun ",), r"\bfun[ \t]+[^\n=]*?=>"),   # Standard ML's `fun f x = ... =>` has its `=`
    where=(("where",), r"^(?:structure|inductive|class|instance)[ \t][^\n]*[ \t]where[ \t]*$"),
    import_=(("import ",), r"^import[ \t]+(?:Mathlib|Std|Lean|Init|Batteries|Aesop|Qq|Lake)\b"),
    variable=(("variable ",), r"^variable[ \t]+[({\[]"),
    match_arm=(("=>",), r"^[ \t]*\|[ \t]+\.?\w+[^\n]*=>"),
)
_ISABELLE_FORMS = forms(
    theory=(("theory",), r"^theory[ \t]+[\w.\"-]+[ \t]*$"),
    imports=(("imports",), r"^[ \t]*imports[ \t]+[\w.\"/ -]+"),
    statement=(("lemma", "theorem", "corollary"), r"^(?:lemma|theorem|corollary|proposition)[ \t]+(?:\w+[ \t]*"
                                                  r"(?:\[[^\]\n]*\])?[ \t]*:[ \t]*)?\""),
    method=(("apply", "by "), r"^[ \t]*(?:apply|by)[ \t]*\(?(?:simp|auto|blast|force|induct(?:ion)?|metis|rule|"
                              r"fastforce|arith|clarsimp|cases)\b"),
    definition=(("definition", "fun ", "primrec", "datatype"), r"^(?:definition|fun|primrec|datatype|type_synonym|"
                                                               r"inductive)[ \t]+[^\n]*(?:\"|where|=)"),
    end=(("done", "qed", "oops", "sorry"), r"^[ \t]*(?:done|qed|oops|sorry)[ \t]*$"),
)
_ALLOY_FORMS = forms(
    sig=(("sig ",), r"^[ \t]*(?:(?:abstract|one|lone|some|var)[ \t]+)*sig[ \t]+\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*"
                    r"(?:(?:extends|in)[ \t]+\w+[ \t]*)?\{"),
    fact=(("fact",), r"^[ \t]*fact[ \t]*\w*[ \t]*\{"),
    predicate=(("pred ", "fun "), r"^[ \t]*(?:pred|fun)[ \t]+[\w/.]+[ \t]*(?:\[[^\]\n]*\])?[ \t]*(?::[^\n{(]*)?\{"),
    command=((" for ",), r"^[ \t]*(?:run|check)[ \t]+\w*[ \t]*(?:\{[^\n]*\})?[ \t]*for[ \t]+\d+"),
    assertion=(("assert ",), r"^[ \t]*assert[ \t]+\w+[ \t]*\{"),
    open_=(("open ",), r"^open[ \t]+util/\w+"),
)
_PROMELA_FORMS = forms(
    proctype=(("proctype",), r"^[ \t]*(?:active[ \t]+(?:\[\d+\][ \t]+)?)?proctype[ \t]+\w+[ \t]*\("),
    channel=(("chan", "mtype"),
             r"^[ \t]*(?:chan[ \t]+\w+[ \t]*=[ \t]*\[\d+\][ \t]*of[ \t]*\{|mtype[ \t]*(?::\w+[ \t]*)?=[ \t]*\{)"),
    guard=(("::",), r"^[ \t]*::[ \t]*[^\n:]"),
    od=(("od",), r"^[ \t]*od[ \t]*;?[ \t]*$"),
    init=(("init",), r"^[ \t]*init[ \t]*\{"),
    atomic=(("atomic", "d_step"), r"\b(?:atomic|d_step)[ \t]*\{"),
    ltl=(("ltl",), r"^[ \t]*ltl[ \t]+\w*[ \t]*\{"),
)
_PDDL_FORMS = forms(
    define=(("(define",), r"\(define[ \t]*\((?:domain|problem)[ \t]+[\w-]+\)"),
    requirements=(("(:requirements",), r"\(:requirements[ \t]+:[\w-]+"),
    action=(("(:action", "(:durative-action"), r"\(:(?:durative-)?action[ \t]+[\w-]+"),
    parameters=((":parameters",), r":parameters[ \t]*\("),
    problem=(("(:objects", "(:init", "(:goal", "(:domain"), r"\(:(?:objects|init|goal|domain)\b"),
    predicates=(("(:predicates", "(:types"), r"\(:(?:predicates|types|functions|constants)\b"),
)
_MODELICA_FORMS = forms(
    class_=(("model", "block", "connector", "record", "package", "function"),
            r"^[ \t]*(?:(?:partial|encapsulated|replaceable|expandable|operator)[ \t]+)*(?:model|block|connector|"
            r"record|package|function)[ \t]+\w+(?:[ \t]+\"[^\"\n]*\")?[ \t]*$"),
    equation=(("equation", "algorithm"), r"^[ \t]*(?:initial[ \t]+)?(?:equation|algorithm)[ \t]*$"),
    derivative=(("der(",), r"\bder\([\w.]+\)"),
    component=(("Real", "Integer", "Boolean", "Modelica.", "SI."),
               r"^[ \t]*(?:(?:parameter|constant|discrete|input|output|flow|stream)[ \t]+)+(?:Real|Integer|Boolean|"
               r"String|Modelica\.[\w.]+|SI\.\w+)\b"),
    annotation=(("annotation",), r"\bannotation[ \t]*\((?:Icon|Diagram|Documentation|experiment|Placement|Line|"
                                 r"uses)\b"),
    within=(("within",), r"\Awithin[ \t]*[\w.]*[ \t]*;"),
    connect=(("connect(",), r"^[ \t]*connect\([\w.\[\]]+[ \t]*,[ \t]*[\w.\[\]]+\)"),
)
_AMPL_FORMS = forms(
    param=(("param ",), r"^[ \t]*param[ \t]+\w+(?:[ \t]*\{[^}\n]*\})?[ \t]*(?:>=|<=|>|<|default|:=|=|integer|binary|"
                        r"symbolic|in|;)"),
    var=(("var ",), r"^[ \t]*var[ \t]+\w+(?:[ \t]*\{[^}\n]*\}[ \t]*(?:>=|<=|binary|integer|;)|[ \t]*(?:>=|<=|binary|"
                    r"integer))"),
    objective=(("minimize", "maximize"), r"^[ \t]*(?:minimize|maximize)[ \t]+\w+[ \t]*:"),
    # a constraint is named before its colon ("subject to the following conditions" is a licence's)
    constraint=(("subject to", "s.t."), r"^[ \t]*(?:subject[ \t]+to|s\.t\.)[ \t]+\w+(?:[ \t]*\{[^}\n]*\})?[ \t]*:"),
    set_=(("set ",), r"^[ \t]*set[ \t]+\w+(?:[ \t]*\{[^}\n]*\})?[ \t]*(?:;|:=|within[ \t]|ordered\b|dimen[ \t]+\d|"
                     r"default[ \t]+\{)"),
    sum=(("sum",), r"\bsum[ \t]*\{[ \t]*\w+[ \t]+in[ \t]+\w+"),
)
_KUSTO_FORMS = forms(
    where=(("where",), r"^[ \t]*\|[ \t]*where[ \t]+[^\n|]*?(?:==|!=|>|<|=~|\bcontains\b|\bhas\b|\bstartswith\b|"
                       r"\bin[ \t]*\(|\bbetween\b|isnotempty\(|isempty\()"),
    summarize=(("summarize",), r"^[ \t]*\|[ \t]*summarize\b[^\n]*(?:\bby\b|\(\))"),
    project=(("project", "extend"), r"^[ \t]*\|[ \t]*(?:project|project-away|project-rename|extend)[ \t]+\w+"),
    limit=(("take", "limit", "top"), r"^[ \t]*\|[ \t]*(?:take|limit|top)[ \t]+\d+"),
    ago=(("ago(",), r"\bago\([ \t]*\d+[dhms]\)"),
    render=(("render",), r"\|[ \t]*render[ \t]+(?:timechart|barchart|piechart|columnchart|areachart|scatterchart)"),
    command=((".create", ".alter", ".show", ".drop", ".set"),
             r"^\.(?:create|alter|drop|show|set)(?:-or-alter)?[ \t]+(?:table|function|materialized-view|tables|"
             r"ingestion|database)"),
)
_CYPHER_FORMS = forms(
    node=(("MATCH", "MERGE", "CREATE", "match", "merge", "create"),
          r"(?i:\b(?:OPTIONAL[ \t]+)?(?:MATCH|MERGE|CREATE))[ \t]+(?:\w+[ \t]*=[ \t]*)?\(\w*:[\w`]+"),
    relationship=(("-[", "]-"), r"\)<?-\[\w*(?::[\w`|]+)?[^\]\n]*\]->?\("),
    # SQL writes these too: one kind between them
    clause=(("RETURN", "return", "WHERE", "where"), r"(?i:^[ \t]*RETURN)[ \t]+(?:DISTINCT[ \t]+)?[\w.(*]+|"
                                                    r"(?i:\bWHERE)[ \t]+\w+\.\w+[ \t]*(?:=|<>|>|<|=~)"),
    unwind=(("UNWIND", "unwind"), r"(?i:\bUNWIND)[ \t]+\S+[ \t]+(?i:AS)[ \t]+\w+"),
    on_=(("ON CREATE", "ON MATCH"), r"\bON[ \t]+(?:CREATE|MATCH)[ \t]+SET\b"),
)
_JSONNET_FORMS = forms(
    std=(("std.",), r"\bstd\.(?:map|filter|format|length|join|objectFields\w*|mergePatch|manifest\w*|extVar|range|"
                    r"foldl|foldr|flattenArrays|toString|type|split|startsWith|endsWith|member|setUnion|parseJson|"
                    r"base64|get|trace|assertEqual|native|thisFile|strReplace|sort|uniq|makeArray|mapWithKey)\("),
    field=(("::", "+:"), r"^[ \t]*['\"]?[\w-]+['\"]?(?:::|\+:|\+::|:::)[ \t]+(?:\{|\[|'|\"|\$|self\b|std\.|import|"
                         r"function|if\b|local\b|\d|[a-z])"),
    import_=(("import",), r"\bimport(?:str|bin)?[ \t]+['\"][^'\"\n]+\.(?:lib)?sonnet['\"]"),
    # a binding ended as Jsonnet ends it (Lua's `local t = {` and `local f = function` are not)
    local=(("local ",), r"^[ \t]*local[ \t]+\w+[ \t]*(?:\([^)\n]*\))?[ \t]*=[^\n]*[;,][ \t]*$"),
)
_VCL_FORMS = forms(
    version=(("vcl ",), r"^vcl[ \t]+\d\.\d[ \t]*;"),
    subroutine=(("sub vcl_",), r"^sub[ \t]+vcl_(?:recv|backend_response|deliver|hash|pipe|pass|miss|hit|synth|"
                               r"backend_error|init|fini|purge|backend_fetch|error|fetch)[ \t]*\{"),
    backend=(("backend ", "probe "), r"^(?:backend|probe)[ \t]+\w+[ \t]*\{"),
    variable=(("req.", "resp.", "obj."), r"\b(?:req|bereq|beresp|resp|obj)\.(?:http\.[\w-]+|url|method|ttl|grace|"
                                         r"status|backend_hint|restarts|hash_always_miss)\b"),
    action=(("return",), r"\breturn[ \t]*\([ \t]*(?:pass|pipe|hash|lookup|deliver|synth|purge|fetch|restart|retry|"
                         r"abandon|hit_for_pass)\b"),
    import_=(("import ",), r"^import[ \t]+(?:std|directors|cookie|header|var|vsthrottle|querystring)[ \t]*;"),
)
_ZEEK_FORMS = forms(
    load=(("@load",), r"^@load(?:-sigs|-plugin)?[ \t]+[\w/.-]+"),
    event=(("event ",), r"^event[ \t]+[\w:]+[ \t]*\([^\n]*\)[ \t]*(?:&priority[ \t]*=[ \t]*-?\d+[ \t]*)?\{?[ \t]*$"),
    module=(("module ",), r"^module[ \t]+\w+[ \t]*;"),
    export=(("export",), r"^export[ \t]*\{[ \t]*\n(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]+(?:redef|type|global|const|option)\b"),
    # TypeScript's `const x: string` is not Zeek's: a constant only of Zeek's own types
    typed=(("global", "const", "option"), r"^[ \t]*(?:global|option)[ \t]+\w+[ \t]*:[ \t]*(?:table|set|vector|count|"
                                          r"string|addr|port|subnet|bool|interval|time|double|int|pattern|record)\b|"
                                          r"^[ \t]*const[ \t]+\w+[ \t]*:[ \t]*(?:table|set|vector|count|addr|port|"
                                          r"subnet|interval|pattern)\b"),
    redef=(("redef",), r"^[ \t]*redef[ \t]+(?:record[ \t]+|enum[ \t]+)?[\w:]+[ \t]*(?:\+=|=|\{|\+)"),
    attribute=(("&",), r"&(?:log|optional|default|redef|create_expire|read_expire|write_expire)\b"),
)
_BITBAKE_FORMS = forms(
    # BitBake's style writes spaces around its operators; an ebuild's shell assignments have none
    source=(("SRC_URI", "SRCREV", "LIC_FILES_CHKSUM"),
            r"^(?:SRC_URI|SRCREV|LIC_FILES_CHKSUM)\S*[ \t]+[?+.:]*=[ \t]+\""),
    inherit=(("inherit",), r"^inherit[ \t]+[\w -]+$"),
    task=(("do_",), r"^(?:python[ \t]+)?do_(?:install|compile|configure|fetch|unpack|patch|deploy|package)\w*"
                    r"(?:[:_](?:append|prepend)\w*)?[ \t]*\(\)[ \t]*\{"),
    package_var=(("${PN}",), r"^(?:RDEPENDS|RRECOMMENDS|FILES|INSANE_SKIP|SYSTEMD_SERVICE|ALTERNATIVE)[_:]\$\{PN\}"),
    # the build's own directories (an ebuild writes ${PN}, ${D} and ${WORKDIR} too)
    variable=(("${",), r"\$\{(?:STAGING_\w+|BPN|bindir|sbindir|sysconfdir|datadir|libdir|includedir|"
                       r"systemd_unitdir|systemd_system_unitdir|nonarch_\w+)\}"),
    metadata=(("LICENSE", "DEPENDS", "SUMMARY", "HOMEPAGE"), r"^(?:LICENSE|DEPENDS|SUMMARY|HOMEPAGE|SECTION)[ \t]+"
                                                              r"[?+]*=[ \t]+\""),
)
_SIEVE_FORMS = forms(
    require=(("require",), r"^require[ \t]*\[?[ \t]*\"(?:fileinto|envelope|reject|vacation|imap4flags|regex|body|"
                           r"variables|relational|copy|mailbox|include|subaddress|date|spamtest|editheader|enotify|"
                           r"ihave|encoded-character|comparator-[\w;-]+)\""),
    test=(("if ", "elsif "), r"(?:els)?if(?<!\wif)[ \t]+(?:not[ \t]+)?(?:header|address|envelope|exists|allof|anyof|"
                             r"size|body|true|false)[ \t]*(?::\w+|\()"),
    tag=((":contains", ":is", ":matches", ":regex", ":over", ":under"),
         r":(?:contains|is|matches|regex|over|under)[ \t]+(?:\"|\[|\d)"),
    action=(("fileinto", "redirect", "discard", "keep", "stop", "addflag", "setflag"),
            r"^[ \t]*(?:(?:fileinto|redirect|addflag|setflag)[ \t]+(?::\w+[ \t]+)*\"[^\"\n]*\"|discard|keep|"
            r"stop)[ \t]*;"),
)
_AUGEAS_FORMS = forms(
    module=(("module ",), r"^module[ \t]+[A-Z]\w*[ \t]*=[ \t]*(?:autoload[ \t]+xfm)?[ \t]*$"),
    lens=(("let lns", "let xfm", "let filter"), r"^[ \t]*let[ \t]+(?:lns|xfm|filter)[ \t]*="),
    autoload=(("autoload",), r"\bautoload[ \t]+xfm\b"),
    include=(("incl ", "excl "), r"\b(?:incl|excl)[ \t]+\"/"),
    primitive=(("del ", "store ", "key ", "label "), r"\b(?:del|store|key|label)[ \t]+(?:/|Rx\.|\"|Sep\.)"),
    library=(("Util.", "Build.", "Rx.", "Sep."), r"\b(?:Util|Build|Rx|Sep)\.(?:eol|comment|empty|indent|opt_space|"
                                                 r"word|space|key_value_line|entry|del_str|del_ws_spc|stdexcl)\b"),
)
_GAP_FORMS = forms(
    library=(("Install", "Declare", "BindGlobal", "NewType"),
             r"(?:Install(?:Method|GlobalFunction|OtherMethod|ImmediateMethod)|Declare(?:Operation|Attribute|"
             r"Property|GlobalFunction|Category|Representation|Filter|Info)|BindGlobal|NewType)\("),
    od=(("od",), r"^[ \t]*od[ \t]*;"),
    fi=(("fi",), r"^[ \t]*fi[ \t]*;"),
    local=(("local ",), r"^[ \t]*local[ \t]+\w+(?:[ \t]*,[ \t]*\w+)*[ \t]*;"),
    function=((":=",), r":=[ \t]*function[ \t]*\("),   # Lua binds its functions with `=`
    session=(("gap>",), r"^gap>[ \t]"),
)
_MACAULAY2_FORMS = forms(
    ring=(("QQ[", "ZZ[", "ZZ/"), r"(?:QQ|ZZ(?:/\d+)?)\[[\w, ]+\]"),
    package=(("needsPackage", "newPackage", "loadPackage"), r"(?:needsPackage|loadPackage)[ \t]*\(?\"|^newPackage\("),
    ideal=(("ideal",), r"ideal(?<!\wideal)[ \t]*[({]"),
    documentation=(("///",), r"^(?:TEST|doc)[ \t]*///"),
    assignment=((":=",), r"^\w+[ \t]*:=[ \t]*(?:method|new|\(\w+\)[ \t]*->)"),
)
_ASYMPTOTE_FORMS = forms(
    import_=(("import ",), r"^import[ \t]+(?:graph|three|geometry|math|contour|palette|olympiad|patterns|markers|"
                           r"graph3|solids|animation|trembling)[ \t]*;"),
    size=(("size(", "unitsize("), r"^(?:unit)?size[ \t]*\([^)\n]*\)[ \t]*;"),
    draw=(("draw(", "fill(", "dot(", "label("),
          r"\b(?:draw|fill|filldraw|dot|label)\([^\n]*(?:--|\.\.|\bcycle\b|unitcircle|\$)"),
    typed=(("pair ", "path ", "pen ", "guide ", "real "), r"^[ \t]*(?:pair|path|pen|guide|picture|transform|triple)"
                                                         r"[ \t]+\w+[ \t]*=[^=\n]"),
)
_NCL_FORMS = forms(
    load=(("load ",), r"^load[ \t]+\"\$NCARG_ROOT/"),
    graphics=(("gsn_",), r"\bgsn_\w+\("),
    attribute=(("@",), r"^[ \t]*\w+@\w+[ \t]*=[ \t]*\S"),
    file=(("addfile(",), r"\baddfile\("),
    block=(("begin",), r"^begin[ \t]*\n(?:[^\n]*\n){1,400}?end[ \t]*$"),
)
_SINGULARITY_FORMS = forms(
    bootstrap=(("Bootstrap:", "bootstrap:", "BootStrap:"),
               r"^(?i:bootstrap):[ \t]*(?:docker|library|shub|localimage|debootstrap|yum|zypper|oras|scratch|busybox|"
               r"docker-daemon|docker-archive)\b"),
    from_=(("From:",), r"^From:[ \t]*\S+[ \t]*$"),
    section=(("%",), r"^%(?:post|environment|runscript|files|labels|help|test|startscript|setup|apprun|appinstall|"
                     r"appenv|arguments)\b"),
)
_TYPOSCRIPT_FORMS = forms(
    content_object=(("= ",), r"^[ \t]*\w+(?:\.\w+)*[ \t]*=[ \t]*(?:PAGE|TEXT|COA(?:_INT)?|HMENU|TMENU|GMENU|"
                             r"FLUIDTEMPLATE|IMAGE|IMG_RESOURCE|CONTENT|RECORDS|USER(?:_INT)?|FILES|CASE|"
                             r"LOAD_REGISTER|TEMPLATE)[ \t]*$"),
    include=(("<INCLUDE_TYPOSCRIPT", "@import"), r"<INCLUDE_TYPOSCRIPT:|^@import[ \t]+'EXT:"),
    numbered=((".",), r"^[ \t]*\w+(?:\.\w+)*\.\d+[ \t]*(?:=|<)[ \t]*[A-Z_]+[ \t]*$"),
    condition=(("[",), r"^\[(?:globalVar|page|tree|applicationContext|request|traverse|siteLanguage)\b"),
    # a constant's value (`= {$plugin.tx_news.view.templateRootPath}`), a copy or reference (`=<`, `<`)
    constant=(("{$",), r"=[ \t]*\{\$[\w.-]+\}"),
    reference=(("=<", " < "), r"^[ \t]*[\w.-]+[ \t]*=?<[ \t]*(?:plugin|lib|config|page|styles|tt_content)\.[\w.]+"
                              r"[ \t]*$"),
)
_USD_FORMS = forms(
    header=(("#usda",), r"\A#usda[ \t]+\d"),
    prim=(("def ", "over ", "class "), r"^[ \t]*(?:def|over|class)[ \t]+(?:\w+[ \t]+)?\"\w+\""),
    attribute=(("uniform", "float", "double", "point3f", "normal3f", "token", "rel ", "matrix4d", "color3f"),
               r"^[ \t]*(?:uniform[ \t]+)?(?:float3?|double3?|point3f|normal3f|token|rel|matrix4d|color3f)(?:\[\])?"
               r"[ \t]+[\w:]+[ \t]*(?:=|$)"),
)
_REGO_FORMS = forms(
    import_=(("import ",), r"^import[ \t]+(?:data|input|future\.keywords|rego\.v1)\b"),
    default=(("default ",), r"^default[ \t]+\w+(?:\[[^\]\n]*\])?[ \t]*:?=[ \t]*\S"),
    rule=(("if ", "{"), r"^\w+(?:[ \t]+contains[ \t]+\w+)?(?:\[[^\]\n]*\])?[ \t]+if[ \t]*\{|^\w+(?:\[[^\]\n]*\])?"
                      r"[ \t]*\{[ \t]*$"),
    document=(("input.", "data."), r"\b(?:input|data)\.[a-z_]\w*(?:\.\w+|\[[^\]\n]*\])+"),
    iteration=(("some ", "every "), r"^[ \t]*(?:some|every)[ \t]+\w+(?:[ \t]*,[ \t]*\w+)?[ \t]+in[ \t]"),
)
_PIG_FORMS = forms(
    load=(("LOAD", "load"), r"(?i:\bLOAD)[ \t]+'[^'\n]+'"),
    generate=(("GENERATE", "generate"), r"(?i:\bFOREACH)[ \t]+\w+[^\n]*(?i:GENERATE)\b"),
    store=(("STORE", "store"), r"(?i:^[ \t]*STORE)[ \t]+\w+[ \t]+(?i:INTO)[ \t]+'"),
    relation=(("=",), r"^[ \t]*\w+[ \t]*=[ \t]*(?i:LOAD|FOREACH|GROUP|FILTER|JOIN|ORDER|DISTINCT|LIMIT|UNION|COGROUP|"
                      r"CROSS|SPLIT)[ \t]"),
    dump=(("DUMP", "dump", "DESCRIBE", "describe"), r"(?i:^[ \t]*(?:DUMP|DESCRIBE|ILLUSTRATE))[ \t]+\w+[ \t]*;"),
)
_MCFUNCTION_FORMS = forms(
    execute=(("execute ",), r"^execute[ \t]+(?:as|at|if|unless|store|positioned|in|run|anchored|align|facing|"
                            r"rotated|on|summon)[ \t]"),
    scoreboard=(("scoreboard ",), r"^scoreboard[ \t]+(?:objectives|players)[ \t]+(?:add|set|remove|operation|reset|"
                                  r"list|enable|get|setdisplay)\b"),
    selector=(("@a", "@e", "@p", "@s", "@r"), r"@(?<![\w@.]@)[aeprs](?:\[[^\]\n]*\])?(?=[ \t\n])"),
    coordinates=(("~", "^"), r"^(?:setblock|fill|summon|tp|teleport|particle|clone|execute[^\n]*positioned)[ \t]+[^\n]*"
                             r"[~^]-?[\d.]*[ \t]+[~^]-?[\d.]*[ \t]+[~^]-?[\d.]*"),
    function=(("function ",), r"^function[ \t]+[\w.-]+:[\w/.-]+"),
    text=(("tellraw", "title"), r"^(?:tellraw|title)[ \t]+@[aeprs]"),
)

SIGNATURES = {
    # Lean 3 first: a Lean 3 proof also writes the commands both share
    "Lean": signed(("begin\n"
    "", "λ", "import data.", "import tactic", "import algebra", "import topology", "import logic",
                    "import order", "variables ", "universe", "has_"), _LEAN3_FORMS, 2),
    "Lean4": signed((":= by", "#eval", "#check", "theorem ", "lemma ", "import Mathlib", "import Lean", "import Std",
                     "import Batteries", "\ninductive ", "\nstructure "), _LEAN4_FORMS, 2),
    "Isabelle": signed(("theory ",), _ISABELLE_FORMS, 2),
    "Alloy": signed(("sig ",), _ALLOY_FORMS, 2),
    "Promela": signed(("proctype", "chan ", "mtype"), _PROMELA_FORMS, 2),
    "PDDL": signed(("(define",), _PDDL_FORMS, 2),
    "Modelica": signed(("\nmodel ", "within ", "\nequation", "connector ", "der(", "Modelica.", "\npackage ", "\n"
    "block ",
                        "  model "), _MODELICA_FORMS, 2),
    "Ampl": signed(("param ", "var ", "subject to", "s.t.", "minimize", "maximize"), _AMPL_FORMS, 2),
    "Kusto": signed(("| where", "| summarize", "| project", "| extend", "| take", "ago(", "|where"), _KUSTO_FORMS, 2),
    "Cypher": signed(("MATCH", "MERGE", "CREATE (", "match (", "merge ("), _CYPHER_FORMS, 2),
    "Jsonnet": signed(("std.", "sonnet", "+:", ":: "), _JSONNET_FORMS, 2),
    "VCL": signed(("sub vcl_", "vcl 4", "vcl 3", "backend "), _VCL_FORMS, 2),
    "Zeek": signed(("@load", "event ", "redef "), _ZEEK_FORMS, 2),
    "BitBake": signed(("SRC_URI", "\ninherit ", "do_install", "${PN}", "LIC_FILES_CHKSUM"), _BITBAKE_FORMS, 2),
    "Sieve": signed(("require [", "require \"", "fileinto", ":contains"), _SIEVE_FORMS, 2),
    "Augeas": signed(("module ", "let lns", "autoload"), _AUGEAS_FORMS, 2),
    "GAP": signed(("Install", "Declare", "BindGlobal", "od;", "fi;", "gap>"), _GAP_FORMS, 2),
    "Macaulay2": signed(("QQ[", "ZZ[", "ZZ/", "needsPackage", "newPackage", "loadPackage"), _MACAULAY2_FORMS, 2),
    "Asymptote": signed(("import graph", "import three", "import geometry", "size(", "draw("), _ASYMPTOTE_FORMS, 2),
    "NCL": signed(("$NCARG_ROOT", "gsn_", "addfile("), _NCL_FORMS, 2),
    "Singularity": signed(("Bootstrap:", "bootstrap:", "BootStrap:"), _SINGULARITY_FORMS, 2),
    "TypoScript": signed(("= PAGE", "= TEXT", "= COA", "= HMENU", "= FLUIDTEMPLATE", "INCLUDE_TYPOSCRIPT", "= {$",
                          "=<"),
                         _TYPOSCRIPT_FORMS, 2),
    "USD": signed(("#usda",), _USD_FORMS, 2),
    "Rego": signed(("import data", "import input", "import future.keywords", "import rego", "default allow",
                    "default deny", "\ndeny[", "\nviolation[", "\nwarn[", "\nallow {", "\nallow if", "input.request"),
                   _REGO_FORMS, 2),
    "Pig": signed(("GENERATE", "generate", "LOAD '", "load '"), _PIG_FORMS, 2),
    "MCFunction": signed(("execute ", "scoreboard ", "tellraw ", "@a ", "@a[", "@e[", "@p[", "@s[", "\nfunction ",
                          "\nsummon ", "\nsetblock "), _MCFUNCTION_FORMS, 2),
}
