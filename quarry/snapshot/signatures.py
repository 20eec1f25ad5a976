"""More languages that neither content model names, each by the forms its own documentation
prescribes (read after quarry.snapshot.dialects' signatures and layouts, before any model):

- interface and schema definitions: Thrift, GraphQL, Cap'n Proto, Smithy, ASN.1, YANG;
- compiler and machine forms: LLVM's IR (`define`, `target triple`, `%x = load`), WebAssembly's
  text format (`(module`, `(func`, `i32.add`);
- shaders: GLSL, HLSL and WGSL by their versions, built-ins, semantics, qualifiers and layouts;
- build, system and service configuration: pkg-config, Kconfig, nginx, Xorg, Puppet, Nix, device
  trees, NSIS installers, Windows registry files;
- Haskell's relatives (Agda, Idris, PureScript), Godot's script, Stan and SAS programs;
- documents, templates and data: Org, Gherkin, Robot Framework, LilyPond, gnuplot, OpenSCAD,
  POV-Ray, Liquid, Velocity, Smarty, Mako and JSP templates, Less, XQuery, Turtle, SPARQL, ANTLR
  grammars, HTTP messages;
- and, in their families' tables: markup and templates (quarry.snapshot.signatures_markup: Sass,
  Haml, Pug, Slim, Typst, wikitext), programs and shells (quarry.snapshot.signatures_code: fish,
  tcsh, Gleam, Hy, Janet, Vyper, Luau, ...), proof, model, query and configuration languages
  (quarry.snapshot.signatures_specs: Lean, Isabelle, Alloy, Kusto, Cypher, Jsonnet, VCL, Zeek, ...),
  general-purpose, functional and verification languages (quarry.snapshot.signatures_general: APL,
  AspectJ, Boogie, Ceylon, Clean, CodeQL, F*, Futhark, Reason, Xtend, ...) and the languages of one
  toolchain or application (quarry.snapshot.signatures_domain: Web IDL, ABNF, TableGen, Soong,
  g-code, ColdFusion, MQL, IGOR Pro, IDL, Inform 7, ...).

Each needs two or more different kinds of its forms (one may sit in a comment or another
language's string), and one kind more in a text that holds examples (a reStructuredText code
directive, a LaTeX environment, markup, a docstring); forms inside a Markdown fence or a
reStructuredText literal block do not count.
The forms are anchored where the language writes them (a line's start, its own punctuation), so
the near languages' own files (C, TypeScript, YAML, Python, Perl, PHP, TeX, Tcl, SQL, Rust,
Haskell, Django templates) do not hold them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from quarry.snapshot import (signatures_code, signatures_domain, signatures_general, signatures_markup,
                             signatures_specs)
from quarry.infra.literals import literal_finder
from quarry.snapshot.dialects import Signature, forms, outside_examples, signed, word

_LLVM_FORMS = forms(
    define=(("define",), r"^define[ \t][^\n]*@[-\w.$\"]+[ \t]*\([^\n]*\{[ \t]*$"),
    declare=(("declare",), r"^declare[ \t][^\n]*@[-\w.$\"]+[ \t]*\("),
    target=(("target",), r"^target[ \t]+(?:datalayout|triple)[ \t]*=[ \t]*\""),
    instruction=(("%",), r"^[ \t]+%[-\w.]+[ \t]*=[ \t]*(?:alloca|load|getelementptr|icmp|fcmp|call|phi|add|sub|mul|"
                         r"sdiv|udiv|and|or|xor|shl|lshr|ashr|select|zext|sext|trunc|bitcast|ptrtoint|inttoptr|"
                         r"extractvalue|insertvalue|fadd|fsub|fmul|fdiv|tail[ \t]+call)[ \t]"),
    terminator=(("ret", "br"), r"^[ \t]+(?:ret[ \t]+(?:void|i\d+|float|double|ptr|%)|br[ \t]+(?:label|i1)[ \t])"),
    metadata=(("!",), r"^![\w.]+[ \t]*=[ \t]*(?:distinct[ \t]+)?!"),
    attributes=(("attributes",), r"^attributes[ \t]+#\d+[ \t]*=[ \t]*\{"),
    global_=(("@",), r"^@[-\w.$\"]+[ \t]*=[ \t]*(?:(?:private|internal|external|linkonce_odr|weak|common|"
                     r"(?:local_)?unnamed_addr|dso_local)[ \t]+)*(?:constant|global)[ \t]"),
)
_WEBASSEMBLY_FORMS = forms(
    module=(("(module",), r"^[ \t]*\(module\b"),
    func=(("(func",), r"\(func(?:[ \t]+\$[\w.]+)?[ \t]+\((?:export|param|result|local|type)\b"),
    instruction=(("i32.", "i64.", "f32.", "f64.", "local.", "global."),
                 r"(?:[if](?:32|64)\.(?:const|add|sub|mul|load|store|eq|ne|lt_s|gt_s|eqz)|(?:local|global)\.(?:get|"
                 r"set|tee))"
                 r"[ \t)\n]"),
    export=(("(export",), r"\(export[ \t]+\"[^\"\n]*\""),
    memory=(("(memory", "(table", "(import"), r"\((?:memory|table)[ \t]+(?:\$\w+[ \t]+)?\d+|"
                                              r"\(import[ \t]+\"[^\"\n]*\"[ \t]+\""),
)
_GLSL_FORMS = forms(
    version=(("#version",), r"^[ \t]*#version[ \t]+\d{3}(?:[ \t]+(?:core|es|compatibility))?[ \t]*$"),
    builtin=(("gl_",), word("gl_") + r"(?:Position|FragColor|FragCoord|FragData|FragDepth|PointSize|VertexID|"
                                     r"InstanceID|GlobalInvocationID|LocalInvocationID|TexCoord|MultiTexCoord\d|"
                                     r"ModelViewProjectionMatrix|ModelViewMatrix|NormalMatrix|Vertex|Normal|"
                                     r"FrontFacing|PointCoord)\b"),
    qualifier=(("uniform", "varying", "attribute"),
               r"^[ \t]*(?:layout[ \t]*\([^)\n]*\)[ \t]*)?(?:uniform|varying|attribute)[ \t]+(?:(?:lowp|mediump|highp)"
               r"[ \t]+)?(?:[biud]?vec[234]|mat[234](?:x[234])?|sampler\w+|image\w+|float|int|uint|bool)[ \t]+\w+"),
    layout=(("layout",), r"^[ \t]*layout[ \t]*\([ \t]*(?:location|binding|std140|std430|set|local_size_x|"
                         r"push_constant)\b"),
    precision=(("precision",), r"^[ \t]*precision[ \t]+(?:lowp|mediump|highp)[ \t]+(?:float|int|sampler\w+)[ \t]*;"),
    stage_io=(("in", "out"), r"^[ \t]*(?:(?:flat|smooth|noperspective)[ \t]+)?(?:in|out)[ \t]+(?:(?:lowp|mediump|highp)"
                             r"[ \t]+)?(?:[biud]?vec[234]|mat[234]|float|int)[ \t]+\w+[ \t]*(?:\[\w*\])?[ \t]*;"),
    texture=(("texture",), word("texture") + r"(?:2D|Cube|Lod|Proj)?[ \t]*\([ \t]*\w+[ \t]*,[^\n]*\bvec[234]?"),
)
_THRIFT_FORMS = forms(
    namespace=(("namespace",), r"^namespace[ \t]+(?:\*|c_glib|cpp|cl|d|dart|delphi|erl|go|haxe|java|js|lua|netstd|"
                               r"csharp|nodejs|ocaml|perl|php|py(?:\.twisted)?|rb|rs|st|swift|xsd)[ \t]+[\w.]+"),
    field=((":",), r"^[ \t]+-?\d+[ \t]*:[ \t]*(?:(?:required|optional)[ \t]+)?(?:bool|byte|i8|i16|i32|i64|double|"
                   r"string|binary|uuid|[A-Z][\w.]*|(?:list|set|map)[ \t]*<[^\n]*>)[ \t]+\w+[ \t]*(?:=[^\n,;]*)?[,;]?"
                   r"[ \t]*(?:(?://|#)[^\n]*)?$"),
    definition=(("struct", "service", "exception", "union"),
                r"^(?:struct|service|exception|union)[ \t]+\w+[ \t]*(?:extends[ \t]+[\w.]+[ \t]*)?\{"),
    include=(("include",), r"^(?:cpp_)?include[ \t]+\"[^\"\n]+\.thrift\""),
    throws=(("throws",), r"\)[ \t]*throws[ \t]*\([ \t]*\d+[ \t]*:"),
)
# GraphQL: a field's type is named (`String!`, `[User!]!`), where TypeScript writes `: string;`
_GRAPHQL_FORMS = forms(
    type=(("type",), r"^(?:extend[ \t]+)?type[ \t]+[A-Z]\w*(?:[ \t]+implements[ \t]+[\w& ]+)?"
                     r"(?:[ \t]+@\w+(?:\([^)\n]*\))?)*"
                     r"[ \t]*\{[ \t]*$"),
    field=(("!",), r"^[ \t]+\w+(?:\([^)\n]*\))?[ \t]*:[ \t]*(?:\[[A-Z]\w*!\]!?|\[[A-Z]\w*\]!|"
                   r"[A-Z]\w*!)(?:[ \t]+@\w+[^\n]*)?[ \t]*$"),
    operation=(("query", "mutation", "subscription", "fragment"),
               r"^(?:query|mutation|subscription)(?:[ \t]++\w+)?[ \t]*+(?:\([ \t]*\$\w+[ \t]*:[^)\n]*\))?[ \t]*\{"
               r"|^fragment[ \t]+\w+[ \t]+on[ \t]+[A-Z]\w*"),
    schema=(("schema", "scalar", "directive", "union"),
            r"^(?:schema[ \t]*\{|scalar[ \t]+[A-Z]\w*[ \t]*$|directive[ \t]+@\w+|"
            r"union[ \t]+[A-Z]\w*[ \t]*=[ \t]*\|?[ \t]*"
            r"[A-Z]\w*(?:[ \t]*\|[ \t]*[A-Z]\w*)+)"),
    variable=(("$",), r"\(\$\w+[ \t]*:[ \t]*\[?[A-Z]\w*!?\]?!?"),
    spread=(("...",), r"^[ \t]+\.\.\.[ \t]*(?:on[ \t]+[A-Z]\w*[ \t]*\{|[A-Za-z]\w*[ \t]*$)"),
)
_PKG_CONFIG_FIELDS = forms(
    name=(("Name:",), r"^Name:[ \t]*\S"),
    description=(("Description:",), r"^Description:[ \t]*\S"),
    version=(("Version:",), r"^Version:[ \t]*\S"),
    libs=(("Libs",), r"^Libs(?:\.private)?:[ \t]*(?:-[lLWp]|\$\{|@|$)"),
    cflags=(("Cflags", "CFlags"), r"^C[Ff]lags(?:\.private)?:[ \t]*(?:-[IDfpW]|\$\{|@|$)"),
    requires=(("Requires",), r"^Requires(?:\.private)?:"),
    variable=(("prefix", "libdir", "includedir"), r"^(?:prefix|exec_prefix|libdir|includedir)[ \t]*=[ \t]*\S"),
)
_KCONFIG_FORMS = forms(
    config=(("config",), r"^(?:menu)?config[ \t]+[A-Z0-9_]+[ \t]*$"),
    type=(("bool", "tristate", "string", "int", "hex"), r"^[ \t]+(?:bool|tristate|string|int|"
                                                        r"hex)(?:[ \t]+\"[^\"\n]*\")?[ \t]*$"),
    depends=(("depends",), r"^[ \t]+depends[ \t]+on[ \t]+[!(]?[A-Z0-9_]"),
    select=(("select", "imply"), r"^[ \t]+(?:select|imply)[ \t]+[A-Z0-9_]+\b"),
    default=(("default", "def_"), r"^[ \t]+(?:def_(?:bool|tristate)|default)[ \t]+(?:y|n|m|\"[^\"\n]*\"|"
                                  r"0x[0-9a-fA-F]+|\d+|[A-Z0-9_]+)"
                           r"(?:[ \t]+if[ \t][^\n]+)?[ \t]*$"),
    menu=(("menu", "choice", "source"), r"^(?:menu[ \t]+\"|endmenu[ \t]*$|choice[ \t]*$|endchoice[ \t]*$|"
                                        r"(?:o|r|or)?source[ \t]+\"[^\"\n]*Kconfig|mainmenu[ \t]+\")"),
    help=(("help",), r"^[ \t]+(?:---[ \t]*)?help(?:[ \t]*---)?[ \t]*$"),
)
_NGINX_FORMS = forms(
    block=(("server", "http", "events", "stream", "upstream", "location", "map"),
           r"^[ \t]*(?:server|http|events|stream|upstream[ \t]+[\w.-]+|location[ \t]+(?:[=~^*]+[ \t]*)?\S+|"
           r"map[ \t]+\$\w+[ \t]+\$\w+)[ \t]*\{"),
    listen=(("listen",), r"^[ \t]*listen[ \t]+(?:[\d.:\[\]]+|\*:?\d*|unix:)\S*(?:[ \t]+\w+)*[ \t]*;"),
    directive=(("server_name", "proxy_", "fastcgi_", "try_files", "worker_", "keepalive_timeout",
                "client_max_body_size",
                "ssl_certificate", "_log", "sendfile", "add_header"),
               r"^[ \t]*(?:server_name|proxy_pass|proxy_set_header|fastcgi_pass|fastcgi_param|try_files|"
               r"worker_processes|"
               r"worker_connections|keepalive_timeout|client_max_body_size|ssl_certificate(?:_key)?|access_log|"
               r"error_log|"
               r"sendfile|add_header)[ \t]+[^\n]*;[ \t]*(?:#[^\n]*)?$"),
    variable=(("$",), r"\$(?:host|remote_addr|request_uri|uri|scheme|args|server_name|proxy_add_x_forwarded_for|"
                      r"http_\w+|document_root|fastcgi_script_name)\b"),
    include=(("include",), r"^[ \t]*include[ \t]+[\w/.*-]*(?:mime\.types|\.conf|fastcgi_params|"
                           r"snippets/[\w.-]+)[ \t]*;"),
)
# Puppet: lower-case classes and defined types (Ruby's and PHP's classes are capitalised or lack the rest)
_PUPPET_FORMS = forms(
    klass=(("class",), r"^class[ \t]+[a-z]\w*(?:::[a-z]\w*)*[ \t]*(?:\([ \t]*(?:\$|$|[A-Z]\w*[ \t]+\$)|\{|inherits\b)"),
    define=(("define",), r"^define[ \t]+[a-z]\w*(?:::[a-z]\w*)*[ \t]*[({]"),
    resource=(("{",), r"^[ \t]*@{0,2}(?:[a-z]\w*::)*[a-z]\w*[ \t]*\{[ \t]*(?:'[^'\n]*'|\"[^\"\n]*\"|\$[\w:]+|"
                      r"\[[^\]\n]*\])[ \t]*:"),
    ensure=(("ensure",), r"^[ \t]*ensure[ \t]*=>[ \t]*(?:['\"]?(?:present|absent|installed|latest|running|stopped|"
                         r"file|directory|link|purged)\b|\$)"),
    relation=(("=>",), r"^[ \t]*(?:require|before|notify|subscribe)[ \t]*=>[ \t]*\[?[ \t]*[A-Z]\w*(?:::[A-Z]\w*)*\["),
    node=(("node",), r"^node[ \t]+(?:'[^'\n]+'|\"[^\"\n]+\"|default|/[^/\n]+/)[ \t]*(?:,[^{\n]*)?\{"),
    include=(("include", "contain"), r"^[ \t]*(?:include|contain)[ \t]+[a-z]\w*(?:::[a-z]\w*)+[ \t]*$"),
    chain=(("->", "~>"), r"[A-Z]\w*\[[^\]\n]+\][ \t]*(?:->|~>)[ \t]*[A-Z]\w*\["),
)
_NIX_FORMS = forms(
    arguments=(("}",), r"^\{[^{}]*\}[ \t]*(?:@[ \t]*\w+[ \t]*)?:[ \t]*$"),
    derivation=(("mkDerivation", "build", "mkShell", "callPackage", "fetch"),
                r"\b(?:(?:stdenv\.)?mkDerivation|buildPythonPackage|buildPythonApplication|buildGoModule|"
                r"rustPlatform\.buildRustPackage|buildNpmPackage|mkShell|callPackage|fetchFromGitHub|fetchurl|fetchgit)"
                r"[ \t]*(?:rec[ \t]*)?(?:\{|\(|\.\/|[a-z])"),
    with_=(("with",), r"^[ \t]*with[ \t]+(?:import[ \t]+<nixpkgs>|pkgs|lib(?:\.\w+)?|self)[ \t]*[;{(]"),
    inherit=(("inherit",), r"^[ \t]*inherit[ \t]+(?:\([\w.]+\)[ \t]+)?[\w-]+(?:[ \t]+[\w-]+)*[ \t]*;"),
    interpolation=(("${",), r"\$\{(?:pkgs|lib|stdenv|self|config|src|out)\b[\w.-]*\}"),
    channel=(("<nixpkgs",), r"<nixpkgs(?:/[\w/.-]*)?>"),
    meta=(("meta", "licenses."), r"^[ \t]*meta[ \t]*=[ \t]*(?:with[ \t]+lib;[ \t]*)?\{|\blicenses\.\w+[ \t]*;"),
)
_DEVICETREE_FORMS = forms(
    version=(("/dts-v1/",), r"^/dts-v1/[ \t]*;"),
    compatible=(("compatible",), r"^[ \t]+compatible[ \t]*=[ \t]*\"[\w,.+-]+\""),
    cells=(("-cells",), r"^[ \t]+#(?:address|size|interrupt|clock|gpio|reset|pwm|phy|dma|"
                        r"thermal-sensor)-cells[ \t]*=[ \t]*<\d+>"),
    cell_list=(("reg", "interrupts", "clocks", "ranges", "gpios"),
               r"^[ \t]+(?:reg|interrupts|clocks|ranges|gpios|[\w-]+-gpios)[ \t]*=[ \t]*<[^>\n]*>"),
    status=(("status",), r"^[ \t]+status[ \t]*=[ \t]*\"(?:okay|disabled)\"[ \t]*;"),
    node=(("@",), r"^[ \t]*(?:[\w-]+:[ \t]*)?[a-z][\w,.+-]*@[0-9a-fA-F]+[ \t]*\{[ \t]*$"),
    reference=(("&",), r"^&[\w-]+[ \t]*\{[ \t]*$"),
    include=(("include",), r"^(?:#include[ \t]+[<\"](?:dt-bindings/[^>\"\n]+|[\w-]+\.dtsi)[>\"]|"
                           r"/include/[ \t]+\"[\w./-]+\")"),
)
_ORG_FORMS = forms(
    keyword=(("#+",), r"^#\+(?:TITLE|AUTHOR|DATE|OPTIONS|STARTUP|PROPERTY|SETUPFILE|EMAIL|LANGUAGE|FILETAGS|TODO|"
                      r"SEQ_TODO|DESCRIPTION|KEYWORDS|HTML_HEAD|LATEX_CLASS|INCLUDE|CATEGORY|NAME|CAPTION|RESULTS|"
                      r"MACRO|EXPORT_FILE_NAME|title|author|date|options|startup|property|setupfile|email|language|"
                      r"filetags|description|keywords|include|name|caption|results)[ \t]*:"),
    block=(("#+BEGIN_", "#+begin_"), r"^[ \t]*#\+(?:BEGIN|begin)_(?:SRC|src|EXAMPLE|example|QUOTE|quote|CENTER|center|"
                                     r"VERSE|verse|EXPORT|export|COMMENT|comment)\b"),
    task=(("*",), r"^\*+[ \t]++(?:(?:TODO|DONE|NEXT|WAITING|CANCELLED)[ \t]+\S|"
                  r"[^\n]*\S[ \t]+:[\w@#%]+(?::[\w@#%]+)*:[ \t]*$)"),
    drawer=((":PROPERTIES:", ":LOGBOOK:"), r"^[ \t]*:(?:PROPERTIES|LOGBOOK):[ \t]*$"),
    link=(("[[",), r"\[\[(?:https?:|file:|id:|#|\*)[^\]\n]+\]\[[^\]\n]+\]\]"),
    planning=(("SCHEDULED:", "DEADLINE:", "CLOSED:"), r"^[ \t]*(?:SCHEDULED|DEADLINE|"
                                                      r"CLOSED):[ \t]*[<\[]\d{4}-\d\d-\d\d"),
)
_GHERKIN_FORMS = forms(
    feature=(("Feature:",), r"^[ \t]*Feature:[ \t]*\S"),
    scenario=(("Scenario", "Example:"), r"^[ \t]*(?:Scenario(?:[ \t]+(?:Outline|Template))?|Example):[ \t]*\S"),
    step=(("Given", "When", "Then"), r"^[ \t]+(?:Given|When|Then)[ \t]+\S"),
    conjunction=(("And", "But"), r"^[ \t]+(?:And|But)[ \t]+\S"),
    background=(("Background:", "Examples:", "Scenarios:", "Rule:"), r"^[ \t]*(?:Background|Examples|Scenarios|Rule):"),
    table=(("|",), r"^[ \t]+\|[^\n]*\|[ \t]*$"),
)
_LILYPOND_FORMS = forms(
    version=(("\\version",), r"^[ \t]*\\version[ \t]+\"\d+\.\d+(?:\.\d+)?\""),
    block=(("\\score", "\\header", "\\layout", "\\midi", "\\paper", "\\book"),
           r"\\(?:score|header|layout|midi|paper|book|bookpart)[ \t]*\{"),
    music=(("\\relative", "\\new", "\\clef", "\\time", "\\key"),
           r"\\(?:relative[ \t]+[a-g]|new[ \t]+(?:Staff|Voice|PianoStaff|GrandStaff|StaffGroup|ChoirStaff|Lyrics|"
           r"ChordNames|DrumStaff|TabStaff)\b|clef[ \t]+\"?(?:treble|bass|alto|tenor|percussion)\b|time[ \t]+\d+/\d+|"
           r"key[ \t]+[a-g](?:is|es)*[ \t]+\\(?:major|minor))"),
    assignment=(("=",), r"^[a-zA-Z]+[ \t]*=[ \t]*(?:\\relative|\\lyricmode|\\chordmode|\\drummode|\\markup|\\fixed)\b"),
)
_GNUPLOT_FORMS = forms(
    terminal=(("set",), r"^[ \t]*set[ \t]+(?:term(?:inal)?[ \t]+\w+|output[ \t]+['\"])"),
    plot=(("plot",), r"^[ \t]*(?:s|re)?plot[ \t]+(?:\[[^\]\n]*\][ \t]*)*(?:['\"][^'\"\n]*['\"]|[a-z]\w*\(|[\w.$-]+)"
                     r"[^\n]*[ \t,](?:using|u|with|w|title|t|notitle|lw|lt|ls|lc|axes)[ \t]"),
    axis=(("set",), r"^[ \t]*set[ \t]+(?:[xyz]2?label|[xyz]2?range|[xyz]2?tics|m[xyz]tics|logscale|key[ \t]|grid\b|"
                    r"title[ \t]+['\"]|style[ \t]+(?:data|line|fill|function)|datafile[ \t]+separator|"
                    r"format[ \t]+[xyz]|"
                    r"size[ \t]+(?:ratio|square|[\d.]))"),
    unset=(("unset",), r"^[ \t]*unset[ \t]+(?:key|border|tics|[xyz]tics|grid|title|colorbox|label)\b"),
)

_HLSL_FORMS = forms(
    semantic=(("SV_",), r":[ \t]*SV_(?:Position|Target\d?|Depth|VertexID|InstanceID|DispatchThreadID|GroupThreadID|"
                        r"GroupID|IsFrontFace|PrimitiveID)\b"),
    vector=(("float", "half", "int"), r"\b(?:float|half|int|uint)[234](?:x[234])?[ \t]+\w+[ \t]*[:;=,)]"),
    resource=(("Texture", "Sampler", "Buffer"), r"\b(?:Texture[123]D|TextureCube|SamplerState|SamplerComparisonState|"
                                                r"RWTexture[123]D|(?:RW)?StructuredBuffer|"
                                                r"ByteAddressBuffer)(?:<[^>\n]*>)?"
                                                r"[ \t]+\w+"),
    cbuffer=(("cbuffer",), r"^[ \t]*cbuffer[ \t]+\w+"),
    register=(("register",), r"register[ \t]*\([ \t]*[btsu]\d+"),
    numthreads=(("numthreads",), r"\[numthreads[ \t]*\("),
)
_WGSL_FORMS = forms(
    stage=(("@vertex", "@fragment", "@compute"), r"^@(?:vertex|fragment|compute)\b"),
    attribute=(("@",), r"@(?:location|builtin|group|binding|workgroup_size)[ \t]*\([^)\n]*\)"),
    types=(("vec", "mat"), r"\b(?:vec[234]|mat[234]x[234])<(?:f32|i32|u32|f16)>"),
    storage=(("var<",), r"\bvar<(?:uniform|storage|private|workgroup)"),
    function=(("fn",), r"^fn[ \t]+\w+[ \t]*\("),
)
# Godot's script: Python's look, its own declarations (`func _ready():`, `extends Node2D`, `signal`)
_GDSCRIPT_FORMS = forms(
    extends=(("extends",), r"^extends[ \t]+[A-Z]\w*[ \t]*$"),
    function=(("func",), r"^(?:static[ \t]+)?func[ \t]+\w+[ \t]*\([^)\n]*\)(?:[ \t]*->[ \t]*\w+)?[ \t]*:"),
    variable=(("var",), r"^(?:@export\w*(?:\([^)\n]*\))?[ \t]+|@onready[ \t]+|export(?:\([^)\n]*\))?[ \t]+|"
                        r"onready[ \t]+)"
                        r"var[ \t]+\w+"),
    signal=(("signal",), r"^signal[ \t]+\w+"),
    engine=(("_ready", "_process", "_input", "queue_free", "get_node", "emit_signal"),
            r"\b(?:_ready|_process|_physics_process|_input)[ \t]*\([^)\n]*\)[ \t]*(?:->[ \t]*\w+[ \t]*)?:|"
            r"\b(?:queue_free|get_node|emit_signal)[ \t]*\("),
)
_ROBOT_FORMS = forms(
    section=(("***",), r"^\*{3}[ \t]*(?:Settings?|Test Cases?|Tasks?|Keywords?|Variables?|Comments?)[ \t]*\*{3}"),
    setting=(("Library", "Resource", "Variables", "Documentation", "Suite", "Test", "Tags"),
             r"^(?:Library|Resource|Variables|Documentation|Suite Setup|Suite Teardown|Test Setup|Test Teardown|"
             r"Force Tags|Default Tags|Test Tags|Test Template|Test Timeout)(?:  |\t)[ \t]*\S"),
    variable=(("${", "@{", "&{"), r"[$@&]\{[\w .-]+\}"),
    bracket=(("[",), r"^(?:  |\t)[ \t]*\[(?:Documentation|Arguments|Return|Tags|Setup|Teardown|Template|Timeout)\]"),
)
_CAPNP_FORMS = forms(
    file_id=(("@0x",), r"^@0x[0-9a-fA-F]{16}[ \t]*;"),
    field=(("@",), r"^[ \t]+\w+[ \t]+@\d+[ \t]*:[ \t]*[\w.()]+"),
    definition=(("struct", "interface", "enum", "union"),
                r"^[ \t]*(?:struct|interface|"
                r"enum)[ \t]+\w+[ \t]*(?:@0x[0-9a-fA-F]+[ \t]*)?(?:extends[ \t]*\([^)\n]*\)[ \t]*)?\{"),
    using=(("using",), r"^using[ \t]+(?:\w+[ \t]*=[ \t]*)?import[ \t]+\""),
    annotation=(("$",), r"\$(?:Cxx|Go|Java|Json)\.\w+\("),
)
_SMITHY_FORMS = forms(
    version=(("$version",), r"^\$version:[ \t]*\"\d"),
    namespace=(("namespace",), r"^namespace[ \t]+[a-z][\w.]*[ \t]*$"),
    shape=(("structure", "service", "operation", "resource", "union", "list", "map", "enum", "intEnum"),
           r"^(?:structure|service|operation|resource|union|list|map|enum|intEnum)[ \t]+[A-Z]\w*[ \t]*"
           r"(?:(?:with|for)[ \t]+\[?[^\n{]*)?\{"),
    trait=(("@",), r"^[ \t]*@(?:required|documentation|http|readonly|idempotent|error|pattern|length|range|httpLabel|"
                   r"httpQuery|httpPayload|httpError|paginated|input|output|sensitive)\b"),
    use=(("use",), r"^use[ \t]+[a-z][\w.]*#\w+"),
)
_NSIS_FORMS = forms(
    section=(("Section",), r"^[ \t]*Section(?:[ \t]+(?:/o[ \t]+)?(?:\"[^\"\n]*\"|-?\w+))?(?:[ \t]+\w+)?[ \t]*$|"
                           r"^[ \t]*SectionEnd\b"),
    function=(("Function",), r"^[ \t]*Function[ \t]+\.?\w+|^[ \t]*FunctionEnd\b"),
    installer=(("OutFile", "InstallDir", "RequestExecutionLevel", "SetCompressor", "ShowInstDetails"),
               r"^[ \t]*(?:OutFile|InstallDir|InstallDirRegKey|RequestExecutionLevel|SetCompressor|ShowInstDetails)"
               r"[ \t]+\S"),
    directive=(("!",), r"^[ \t]*!(?:include|define|insertmacro|macro|macroend|ifdef|ifndef|endif|addplugindir)\b"),
    instruction=(("SetOutPath", "WriteReg", "DeleteRegKey", "CreateShortCut", "CreateDirectory", "WriteUninstaller",
                  "RMDir", "ExecWait"),
                 r"^[ \t]*(?:SetOutPath|WriteRegStr|WriteRegDWORD|DeleteRegKey|CreateShortCut|CreateDirectory|"
                 r"WriteUninstaller|RMDir|ExecWait)[ \t]+\S"),
    variable=(("$",), r"\$(?:INSTDIR|SMPROGRAMS|PROGRAMFILES(?:64)?|DESKTOP|EXEDIR|WINDIR|SYSDIR|PLUGINSDIR)\b"),
)
_REGISTRY_FORMS = forms(
    header=(("Windows Registry Editor", "REGEDIT4"), r"\A\ufeff?(?:Windows Registry Editor Version \d\.\d\d|"
                                                     r"REGEDIT4)[ \t]*$"),
    key=(("HKEY_",), r"^\[-?HKEY_(?:LOCAL_MACHINE|CURRENT_USER|CLASSES_ROOT|USERS|"
                     r"CURRENT_CONFIG)(?:\\[^\]\n]*)?\][ \t]*$"),
    value=(("=",), r"^(?:@|\"[^\"\n]+\")=(?:\"|dword:|hex(?:\([0-9a-f]\))?:|-)"),
)
_XQUERY_FORMS = forms(
    version=(("xquery",), r"^xquery[ \t]+(?:version|encoding)[ \t]+\""),
    declare=(("declare",), r"^declare[ \t]+(?:(?:updating[ \t]+)?function|variable|namespace|option|default[ \t]+"
                           r"(?:element|function)[ \t]+namespace|boundary-space|context[ \t]+item)[ \t]"),
    module=(("module",), r"^module[ \t]+namespace[ \t]+[\w-]+[ \t]*=[ \t]*\""),
    imports=(("import",), r"^import[ \t]+(?:module|schema)[ \t]+namespace"),
    flwor=(("$",), r"\b(?:for[ \t]+\$[\w-]+[ \t]+in|let[ \t]+\$[\w-]+[ \t]*:=)[ \t]"),
    call=(("local:", "fn:", "xs:", "xdmp:"), r"\b(?:local|fn|xs|xdmp):[\w-]+\("),
)
_TURTLE_FORMS = forms(
    prefix=(("@prefix",), r"^@prefix[ \t]+[\w-]*:[ \t]*<[^>\n]*>[ \t]*\."),
    base=(("@base",), r"^@base[ \t]+<[^>\n]*>[ \t]*\."),
    typed=((" a ",), r"^(?:<[^>\n]+>|[\w-]*:[\w-]*)[ \t]+a[ \t]+[\w-]*:[\w-]+[ \t]*[;.,]"),
    predicate=((":",), r"^[ \t]+[\w-]*:[\w-]+[ \t]+(?:\"[^\"\n]*\"(?:@[\w-]+|\^\^[\w-]*:[\w-]+)?|<[^>\n]+>|"
                       r"[\w-]*:[\w-]+|"
                       r"\d+)[ \t]*[;.,]"),
)
_SPARQL_FORMS = forms(
    prefix=(("PREFIX", "prefix"), r"^(?:PREFIX|prefix)[ \t]+[\w-]*:[ \t]*<[^>\n]*>[ \t]*$"),
    query=(("SELECT", "CONSTRUCT", "ASK", "DESCRIBE", "select", "construct", "ask", "describe"),
           r"^[ \t]*(?:SELECT|CONSTRUCT|ASK|DESCRIBE|select|construct|ask|describe)(?:[ \t]+(?:DISTINCT|REDUCED|"
           r"distinct))?"
           r"(?:[ \t]+\?\w+|[ \t]*\{)"),
    where=(("WHERE", "where"), word("WHERE") + r"[ \t]*\{|" + word("where") + r"[ \t]*\{"),
    pattern=(("?",), r"\?\w+[ \t]+(?:[\w-]*:[\w-]+|a|<[^>\n]+>)[ \t]+(?:\?\w+|[\w-]*:[\w-]+|\"[^\"\n]*\")"),
    filter=(("FILTER", "OPTIONAL", "filter", "optional"),     # never a method (`.filter(`)
            r"\b(?:FILTER|OPTIONAL)[ \t]*[({]|(?<![\w.])(?:filter|optional)[ \t]*[({]"),
)
_ANTLR_FORMS = forms(
    grammar=(("grammar",), r"^(?:(?:lexer|parser|tree)[ \t]+)?grammar[ \t]+\w+[ \t]*;"),
    options=(("options", "tokens", "channels", "@"), r"^(?:options|tokens|channels)[ \t]*\{|"
                                                   r"^@(?:header|members|lexer::\w+|parser::\w+)[ \t]*\{"),
    command=(("->",), r"->[ \t]*(?:skip|channel[ \t]*\(|pushMode[ \t]*\(|popMode|more|type[ \t]*\(|mode[ \t]*\()"),
    fragment=(("fragment",), r"^fragment[ \t]+[A-Z]\w*"),
)
# an HTTP message: its start line (the whole text's first), then header fields
_HTTP_FORMS = forms(
    start=(("HTTP/",), r"\A(?:(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)[ \t]+\S+[ \t]+HTTP/\d(?:\.\d)?[ \t]*$|"
                       r"HTTP/\d(?:\.\d)?[ \t]+\d{3}\b)"),
    header=((":",), r"^(?:Host|Content-Type|Content-Length|User-Agent|Accept|Authorization|Cache-Control|Connection|"
                    r"Set-Cookie|Cookie|Server|Location)[ \t]*:[ \t]*\S"),
)
_XORG_FORMS = forms(
    section=(("Section",), r"^[ \t]*Section[ \t]+\"(?:Device|Monitor|Screen|InputDevice|InputClass|ServerLayout|"
                           r"ServerFlags|Files|Module|Extensions|OutputClass)\""),
    end=(("EndSection",), r"^[ \t]*EndSection\b"),
    entry=(("Identifier", "Driver", "Match", "Option"), r"^[ \t]+(?:Identifier|Driver|MatchProduct|MatchIsPointer|"
                                                       r"MatchIsKeyboard|MatchIsTouchpad|"
                                                       r"MatchDriver)[ \t]+\"[^\"\n]*\"|"
                                                       r"^[ \t]+Option[ \t]+\"\w+\"[ \t]+\""),
    subsection=(("SubSection",), r"^[ \t]*(?:SubSection|EndSubSection)\b"),
)
_OPENSCAD_FORMS = forms(
    solid=(("cube", "sphere", "cylinder", "polyhedron"),
           r"\b(?:cube|sphere|cylinder|polyhedron)[ \t]*\((?:[ \t]*\[|[^)\n]*\b(?:r|h|d|r1|r2|center|size)[ \t]*=)"),
    transform=(("translate", "rotate", "scale", "mirror"), r"\b(?:translate|rotate|scale|mirror)[ \t]*\([ \t]*\["),
    boolean=(("difference", "union", "intersection", "hull", "minkowski"),
             r"\b(?:difference|union|intersection|hull|minkowski)[ \t]*\([ \t]*\)[ \t]*\{?"),
    extrude=(("_extrude",), r"\b(?:linear|rotate)_extrude[ \t]*\("),
    special=(("$f",), r"\$f[nas][ \t]*="),
    library=(("include", "use"), r"^(?:include|use)[ \t]*<[\w./-]+\.scad>"),
)
_YANG_FORMS = forms(
    version=(("yang-version",), r"^[ \t]*yang-version[ \t]+\"?1(?:\.1)?\"?;"),
    module=(("module",), r"^(?:sub)?module[ \t]+[\w-]+[ \t]*\{"),
    node=(("container", "leaf", "list", "grouping", "uses", "augment", "rpc", "notification"),
          r"^[ \t]+(?:container|leaf|leaf-list|list|grouping|uses|augment|rpc|notification)[ \t]+[\w:/\"-]+[ \t]*[{;]"),
    type=(("type",), r"^[ \t]+type[ \t]+(?:string|boolean|u?int(?:8|16|32|64)|enumeration|union|leafref|identityref|"
                     r"decimal64|inet:[\w-]+|yang:[\w-]+)[ \t]*[;{]"),
    namespace=(("namespace",), r"^[ \t]+namespace[ \t]+\"(?:urn|http)[^\"\n]*\";"),
    prefix=(("prefix",), r"^[ \t]+prefix[ \t]+\"?[\w-]+\"?;"),
)
_ASN1_FORMS = forms(
    module=(("DEFINITIONS",), r"\bDEFINITIONS(?:[ \t]+\w+[ \t]+TAGS)?[ \t]*::=[ \t\n]*BEGIN\b"),
    assignment=(("::=",), r"::=[ \t]*(?:SEQUENCE|SET|CHOICE|ENUMERATED|INTEGER|OCTET[ \t]+STRING|BIT[ \t]+STRING|"
                          r"OBJECT[ \t]+IDENTIFIER)\b"),
    component=(("INTEGER", "BOOLEAN", "STRING", "IDENTIFIER", "String", "SEQUENCE", "OPTIONAL"),
               r"^[ \t]+[a-z][\w-]*[ \t]+(?:\[\d+\][ \t]+)?(?:(?:IMPLICIT|EXPLICIT)[ \t]+)?(?:INTEGER|BOOLEAN|"
               r"OCTET[ \t]+STRING|BIT[ \t]+STRING|OBJECT[ \t]+IDENTIFIER|UTF8String|IA5String|PrintableString|"
               r"SEQUENCE[ \t]+OF[ \t]+\w+)(?:[ \t]*\([^)\n]*\))?(?:[ \t]+OPTIONAL|"
               r"[ \t]+DEFAULT[^\n,]*)?[ \t]*,?[ \t]*$"),
    imports=(("IMPORTS", "EXPORTS"), r"^[ \t]*(?:IMPORTS|EXPORTS)\b"),
)
_POVRAY_FORMS = forms(
    scene=(("camera", "light_source", "sky_sphere", "global_settings", "background"),
           r"^[ \t]*(?:camera|light_source|sky_sphere|global_settings|background)[ \t]*\{"),
    solid=(("sphere", "box", "cylinder", "cone", "plane", "torus", "mesh", "union", "difference", "intersection",
            "merge", "blob", "isosurface"),
           r"^[ \t]*(?:sphere|box|cylinder|cone|plane|torus|mesh2?|union|difference|intersection|merge|blob|"
           r"isosurface)[ \t]*\{"),
    material=(("pigment", "finish", "normal", "texture", "interior"),
              r"\b(?:pigment|finish|normal|texture|interior)[ \t]*\{"),
    include=(("#include",), r"^#include[ \t]+\"[\w.-]+\.inc\""),
    vector=(("<",), r"<[ \t]*-?[\d.]+[ \t]*,[ \t]*-?[\d.]+[ \t]*,[ \t]*-?[\d.]+[ \t]*>"),
    directive=(("#declare", "#local", "#macro"), r"^[ \t]*#(?:declare|local|macro)[ \t]+\w+"),
)

# Haskell's relatives: Agda and Idris sign with one colon (Haskell with two), Agda over `Set`, Idris
# over `Type`; PureScript imports
# its Prelude and its Effect, and writes `pure unit`
_IDRIS_FORMS = forms(
    module=(("module",), r"^module[ \t]+[A-Z][\w.]*[ \t]*$"),
    directive=(("%",), r"^%(?:default[ \t]+(?:total|partial|covering)|access[ \t]+\w+|auto_implicits|language|hide|"
                       r"inline|foreign)\b"),
    signature=((":",), r"^(?:(?:public[ \t]+)?export[ \t]+|"
                       r"private[ \t]+)?[a-z]\w*'?[ \t]*:[ \t]*(?:\{[^}\n]*\}[ \t]*->[ \t]*)?"
                       r"[A-Z(]"),
    data=(("data",), r"^(?:public[ \t]+export[ \t]+|"
                     r"export[ \t]+)?data[ \t]+[A-Z]\w*[ \t]*:[ \t]*(?:[^\n]*->[ \t]*)?Type\b"),
    interface=(("implementation", "interface"), r"^(?:implementation|interface)[ \t]+[A-Z]\w*"),
    doc=(("|||",), r"^[ \t]*\|\|\|[ \t]"),
)
_AGDA_FORMS = forms(
    open_import=(("open",), r"^open[ \t]+import[ \t]+[A-Z]"),
    set=(("Set",), r"^(?:data|record)[ \t]+[^\n:]+:[ \t]*Set\b|:[ \t]*Set[₀-₉]?[ \t]*where\b"),
    postulate=(("postulate",), r"^[ \t]*postulate\b"),
    pragma=(("{-#",), r"\{-#[ \t]*(?:OPTIONS[ \t]+--|BUILTIN|TERMINATING|NON_TERMINATING)"),
    unicode=(("→", "∀", "≡"), r"[→∀≡]"),
    signature=((":",), r"^[^\s:-][^:\n]{0,200}[ \t]:[ \t]+[^:=\n]{0,400}(?:→|->)"),
)
# Agda in a LaTeX document: the gate's literal is its code environment, so a plain Agda module
# (which writes none) never reads as literate; Agda's own forms, no Haskell's
_LITERATE_AGDA_FORMS = {kind: _AGDA_FORMS[kind] for kind in ("open_import", "set", "postulate", "pragma")}
_PURESCRIPT_FORMS = forms(
    prelude=(("Prelude",), r"^import[ \t]+Prelude[ \t]*$"),
    effect=(("Effect", "Aff"), r"^import[ \t]+Effect(?:\.[\w.]+)?\b|::[ \t]*(?:Effect|Aff)[ \t]+\w"),
    unit=(("unit",), r"\bpure[ \t]+unit\b"),
    foreign=(("foreign",), r"^foreign[ \t]+import[ \t]+[a-z]\w*[ \t]*::"),
)
# Liquid (Shopify's, Jekyll's templates): its own tags, a page's front matter, filters that take
# arguments after a colon (Django's do too: it needs another kind)
_LIQUID_FORMS = forms(
    tag=(("{%",), r"\{%-?[ \t]*(?:assign|capture|endcapture|unless|endunless|increment|decrement|tablerow|"
                  r"endtablerow|render|liquid)\b"),
    filter=(("|",), r"\|[ \t]*(?:default|date|append|prepend|remove|replace|split|join|truncate|truncatewords|downcase|"
                    r"upcase|strip_html|url_encode|where|sort|map|plus|minus|times|divided_by|slice|relative_url|"
                    r"absolute_url|markdownify|slugify)[ \t]*:[ \t]*[\"'\w]"),
    front_matter=(("---",), r"\A---[ \t]*\n(?:[\w-]+:[^\n]*\n)+---[ \t]*$"),
)
# Less: variables and mixin calls where CSS has neither
_LESS_FORMS = forms(
    variable=(("@",), r"^@[\w-]+[ \t]*:[ \t]*[^;\n]+;"),
    mixin_call=((".",), r"^[ \t]+\.[\w-]+(?:\([^)\n]*\))?[ \t]*;"),
    guard=(("when",), r"\)[ \t]*when[ \t]*\("),
    escape=(("~",), r"~[\"'][^\"'\n]*[\"']"),
    operation=(("@",), r"^[ \t]+[\w-]+[ \t]*:[^;\n@]*@[\w-]+[ \t]*[*+/-][ \t]*[\d@(]"),
    reference=(("@import",), r"^@import[ \t]+\((?:reference|less|css|inline|once|multiple|optional)\)"),
    extend=((":extend",), r":extend\("),
)
_STAN_FORMS = forms(
    block=(("data", "parameters", "model", "quantities", "functions"),
           r"^(?:functions|data|transformed[ \t]+data|parameters|transformed[ \t]+parameters|model|"
           r"generated[ \t]+quantities)[ \t]*\{"),
    sampling=(("~",), r"^[ \t]+\w+(?:\[[^\]\n]*\])?[ \t]*~[ \t]*(?:normal|cauchy|beta|gamma|poisson|binomial|bernoulli"
                      r"(?:_logit)?|student_t|exponential|lognormal|uniform|multi_normal\w*|lkj_corr_cholesky|"
                      r"inv_gamma|"
                      r"dirichlet)\("),
    declaration=(("real", "int", "vector", "matrix", "simplex"),
                 r"^[ \t]+(?:real|int|vector|matrix|simplex|cov_matrix|corr_matrix|cholesky_factor_corr)"
                 r"(?:<[^>\n]*(?:lower|upper)[^>\n]*>)?(?:\[[^\]\n]*\])?[ \t]+\w+[ \t]*;"),
)
_SAS_FORMS = forms(
    data_step=(("data",), r"^[ \t]*data[ \t]+[\w.]+(?:[ \t]*\([^)\n]*\))?[ \t]*;"),
    proc=(("proc", "PROC", "Proc"), r"^[ \t]*(?i:proc)[ \t]+\w+\b[^;\n]*;"),
    run=(("run", "RUN", "Run", "quit", "QUIT", "Quit"), r"^[ \t]*(?i:run|quit)[ \t]*;"),
    macro=(("%",), r"^[ \t]*%(?i:macro|mend|let|put|include)\b"),
    library=(("libname", "LIBNAME", "Libname", "filename", "FILENAME", "Filename"), r"^[ \t]*(?i:libname|"
                                                                                    r"filename)[ \t]+\w+[ \t]"),
)

# Template engines by their own directives (never by `${...}`, which shells and JavaScript write)
_VELOCITY_FORMS = forms(
    set=(("#set",), r"#set[ \t]*\([ \t]*\$"),
    foreach=(("#foreach",), r"#foreach[ \t]*\([ \t]*\$\w+[ \t]+in[ \t]"),
    conditional=(("#if", "#elseif"), r"#(?:else)?if[ \t]*\([ \t]*!?\$"),
    macro=(("#macro",), r"#macro[ \t]*\([ \t]*\w+"),
)
_SMARTY_FORMS = forms(
    closing=(("{/",), r"(?<!\{)\{/(?:foreach|foreachelse|if|section|capture|literal|strip|block|function)\}"),
    tag=(("{",), r"(?<!\{)\{(?:assign|foreach|section|include|capture|extends|block|config_load)[ \t]+\w+[ \t]*=|"
                 r"(?<!\{)\{(?:if|elseif|foreach)[ \t]+\$\w+"),
    modifier=(("{$",), r"(?<!\{)\{\$\w+(?:\.\w+|->\w+|\[[^\]\n]*\])*(?:\|[\w:\"']+)+\}"),
    literal=(("{literal}", "delim}"), r"\{literal\}|\{[lr]delim\}"),
)
_MAKO_FORMS = forms(
    control=(("%",), r"^[ \t]*%[ \t]*(?:(?:if|for|elif|while|try)\b[^\n]*:|else:|endif|endfor|endwhile|endtry)[ \t]*$"),
    tag=(("<%",), r"<%(?:inherit|def|namespace|include|block|page|text|call)\b"),
    closing=(("</%",), r"</%(?:def|block|call|text)>"),
    filtered=(("${",), r"\$\{[^}|\n]{0,200}\|[ \t]*(?:h|u|x|n|trim|entity)\b"),
)

# JavaServer Pages: directives, standard actions, tag libraries (ASP.NET writes `<%@ Page`, capitalised)
_JSP_FORMS = forms(
    directive=(("<%@",), r"<%@\s*(?:page|taglib|include)\b"),
    taglib=(("jsp/jstl", "springframework.org/tags"), r"uri=\"http://(?:java\.sun\.com|xmlns\.jcp\.org)/jsp/jstl/\w+\"|"
                                                     r"uri=\"http://www\.springframework\.org/tags"),
    action=(("<jsp:",), r"<jsp:(?:include|forward|param|useBean|setProperty|getProperty)\b"),
    jstl=(("<c:", "<fmt:"), r"<(?:c|fmt):(?:forEach|if|choose|when|otherwise|out|set|url|import|param|message|"
                           r"formatDate|formatNumber|setBundle)\b"),
    scope=(("${",), r"\$\{[ \t]*(?:param|paramValues|sessionScope|requestScope|pageContext|applicationScope|"
                    r"initParam)\."),
    scriptlet=(("<%",), r"<%(?!@|--)\s*(?:String|int|List|Map|out\.print|request\.getParameter|"
                        r"session\.getAttribute|response\.)"),
)

# none of these writes another's forms, so their order does not matter
_OWN = {
    "LLVM": signed(("\ndefine ", "\ndeclare ", "target triple"), _LLVM_FORMS, 2),
    "WebAssembly": signed(("(module", "(func $"), _WEBASSEMBLY_FORMS, 2),
    "GLSL": signed(("gl_", "#version"), _GLSL_FORMS, 2, "`"),   # a JavaScript template string
    "Thrift": signed((" 1:", "\t1:"), _THRIFT_FORMS, 2),   # a struct's first field
    "GraphQL": signed(("\ntype ", "\nquery", "\nmutation", "\nfragment "), _GRAPHQL_FORMS, 2),
    "PkgConfig": signed(("Libs:", "Cflags:"), _PKG_CONFIG_FIELDS, 3),
    "Kconfig": signed(("\nconfig ", "\nmenuconfig "), _KCONFIG_FORMS, 3),
    "Nginx configuration file": signed(("server_name", "proxy_pass", "worker_processes", "fastcgi_pass"),
                                        _NGINX_FORMS, 3),
    "Puppet": signed(("ensure =>", "ensure  =>", "\nnode ", "\ndefine "), _PUPPET_FORMS, 2),
    "Nix": signed(("}:\n", "mkDerivation", "nixpkgs"), _NIX_FORMS, 2),
    "Devicetree": signed(("/dts-v1/", "compatible = \"", "-cells = <"), _DEVICETREE_FORMS, 2),
    "Org Mode": signed(("#+",), _ORG_FORMS, 2),
    "Gherkin": signed(("Feature:",), _GHERKIN_FORMS, 3),
    "LilyPond": signed(("\\version", "\\new ", "\\relative"), _LILYPOND_FORMS, 2),
    "Gnuplot": signed(("plot",), _GNUPLOT_FORMS, 2),
    "HLSL": signed(("SV_", "cbuffer", "numthreads", "Texture2D"), _HLSL_FORMS, 2),
    "WebGPU Shading Language": signed(("@vertex", "@fragment", "@compute", "@location", "@binding"), _WGSL_FORMS, 2),
    "GDScript": signed(("\nfunc ", "\nextends "), _GDSCRIPT_FORMS, 2),
    "RobotFramework": signed(("***",), _ROBOT_FORMS, 2),
    "Cap'n Proto": signed(("@0x", " @0"), _CAPNP_FORMS, 2),
    "Smithy": signed(("$version", "\nstructure ", "\noperation "), _SMITHY_FORMS, 2),
    "NSIS": signed(("SectionEnd", "FunctionEnd", "OutFile", "!insertmacro"), _NSIS_FORMS, 3),
    # its first line, keys and values
    "reg": signed(("Windows Registry Editor", "REGEDIT4"), _REGISTRY_FORMS, 3),
    "XQuery": signed(("xquery ", "declare function", "module namespace", "let $", "for $"), _XQUERY_FORMS, 2),
    "Turtle": signed(("@prefix", "@base"), _TURTLE_FORMS, 2),
    "SPARQL": signed(("PREFIX ", "SELECT ?", "SELECT DISTINCT ?", "CONSTRUCT {", "prefix ", "select ?"),
                      _SPARQL_FORMS, 2),
    "ANTLR": signed(("grammar ",), _ANTLR_FORMS, 2),
    "HTTP": signed(("HTTP/",), _HTTP_FORMS, 2),
    "Xorg": signed(("EndSection",), _XORG_FORMS, 3),
    "OpenSCAD": signed(("$fn", "difference()", "translate([", ".scad>", "cube([", "cylinder("),
                        _OPENSCAD_FORMS, 2),
    "YANG": signed(("yang-version", "\n  leaf ", "\n    leaf "), _YANG_FORMS, 3),
    "ASN.1": signed(("::=",), _ASN1_FORMS, 2),
    "POVRay": signed(("camera", "light_source", "pigment", ".inc\""), _POVRAY_FORMS, 2),
    "Literate Agda": Signature(("\\begin{code}",), _LITERATE_AGDA_FORMS, 2, ("```",)),
    "Agda": signed(("open import", "postulate", "{-# OPTIONS", ": Set"), _AGDA_FORMS, 2),
    "Idris": signed(("%default", "|||", "%access", "\nmodule "), _IDRIS_FORMS, 2),
    "PureScript": signed(("import Prelude", "import Effect", "pure unit", "foreign import"), _PURESCRIPT_FORMS, 2),
    "liquid": signed(("{%",), _LIQUID_FORMS, 2),
    # variables one after another or after a comment (`\n@` alone is every Python decorator)
    "LessCss": signed((";\n@", "/\n@", ":extend(", "when ("), _LESS_FORMS, 2),
    "Stan": signed(("parameters {", "model {"), _STAN_FORMS, 2),
    "SAS": signed(("run;", "RUN;", "quit;", "QUIT;"), _SAS_FORMS, 3),
    "Velocity": signed(("#set", "#foreach", "#macro"), _VELOCITY_FORMS, 2),
    "Smarty": signed(("{/", "{$", "{assign ", "{include ", "{foreach ", "{if "), _SMARTY_FORMS, 2),
    "Mako": signed(("<%inherit", "<%def", "<%namespace", "<%block", "% endif", "% endfor", "%endif", "%endfor"),
                    _MAKO_FORMS, 2),
    "Java Server Page": signed(("<%@", "<jsp:", "<c:"), _JSP_FORMS, 2),
}
# the other families' tables after this one, each in its own order (Lean 3 before Lean 4)
SIGNATURES = {**_OWN, **signatures_markup.SIGNATURES, **signatures_code.SIGNATURES, **signatures_specs.SIGNATURES,
              **signatures_general.SIGNATURES, **signatures_domain.SIGNATURES}


# A signature's literals are looked for in the text's first characters only: its own words come
# early (a header, a declaration, the first rule), and the look is then cheap on every long record.
LITERAL_WINDOW = 8192


@functools.cache
def _literals_present() -> Callable[[str], set[str]]:
    """Every signature's literals in one automaton: a text's head is read once for all of them (an
    `in` test per literal, 379 for 85 signatures, cost 1.15 ms a record)."""
    return literal_finder(literal for signature in SIGNATURES.values() for literal in signature.literals)


def by_signature(text: str) -> str | None:
    """One of these languages, where enough of its own forms are present outside a document's
    examples (Markdown fences, reStructuredText literal blocks)."""
    text = outside_examples(text)
    present = _literals_present()(text[:LITERAL_WINDOW])
    for language, signature in SIGNATURES.items():
        if not present.isdisjoint(signature.literals) and signature.enough_forms(text):
            return language
    return None
