"""Forms that only one language writes: evidence for languages that neither content model names.

Magika has one label for the whole Lisp family (trained on Common Lisp files) and none for Emacs
Lisp, Scheme, Meson, R's documentation, CUDA, PostScript, DOT, QML, RPM specs, DTDs, Java's
properties, Debian's control files, LDIF, DNS zones, Vim script or systemd's units, which it reads as the
nearest language it knows (Lisp, Python or Starlark, LaTeX, C, INI, XML, YAML, plain text) or not
at all.
Nor does it always tell a language from its superset or dialect: D and C++ from C, Cython and Nim
from Python, Vala from C#, SystemVerilog from Verilog, fixed-form from free-form Fortran. Each is
told here by the forms its own documentation prescribes and no near language writes:

- Emacs Lisp: a library's header line (``;;; name.el --- summary``) and footer (``;;; name.el
  ends here``), the ``lexical-binding`` file variable (Emacs Lisp's own), or a directory's
  local variables (``((nil . (...)) (c-mode ...))``);
- Racket: the ``#lang`` line every module starts with;
- Meson: the built-in ``meson`` object, its block ends (``endif``, ``endforeach``) and calls;
- Rd: the sections every R documentation file has (``\\name``, ``\\alias``, ``\\title``, ...);
- CUDA: kernel definitions, launches (``<<<grid, block>>>``) and the thread index built-ins;
- PostScript: its ``%!`` first line; DOT: the graph statement the whole file is;
- Debian control files, RPM specs and LDIF: their own fields and sections (``Standards-Version:``;
  ``%prep``, ``%files``; ``dn:``, ``changetype:``); QML's imports and bindings; DTDs' declarations;
- Java properties: every line a dotted ``key=value`` or a comment, no section; a DNS zone file:
  every line a directive or a resource record (``www 300 IN A 192.0.2.1``), an SOA among them; an
  e-mail message: a header block naming its sender (a mailed patch is a diff first);
- Vim script: syntax items and their highlight links, ``g:``/``s:`` variables, ``function!``, mappings;
- within the language a model leans to, its dialects' own forms (`DIALECTS`), and the layout of
  fixed-form Fortran (statements from column 7, continuation marks in column 6).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EMACS_LISP = "EmacsLisp"
_EMACS_LISP_CONVENTIONS = re.compile(
    r"\A\s*;;;[ \t]+[\w.+-]+\.el[ \t]+---|^;;;[ \t]+[\w.+-]+\.el[ \t]+ends here|-\*-[^\n]*\blexical-binding:", re.M)
# a directory's local variables (.dir-locals.el): one list of (MODE . VARIABLES), MODE nil or a major mode
_DIR_LOCALS = re.compile(r"\A(?:\s|;[^\n]*\n)*\([ \t\n]*\((?:nil[ \t\n]*\.|[\w+-]+-mode\b)")
# an agda code block that declares the module (before its closing fence: no line there opens with a backquote)
_LITERATE_AGDA_MODULE = re.compile(r"^```agda[ \t]*\n(?:[^`\n][^\n]*\n|[ \t]*\n)*?module[ \t]+[\w.]+", re.M)
_RACKET_MODULE = re.compile(r"\A(?:;[^\n]*\n|\s)*#lang[ \t]+[\w/-]+")
# DOT's one top-level form, the graph statement, after comments (`//`, `/* */`, `#` lines)
# (possessive: a comment ends at its first `*/`, and what the comments took is never given back)
_DOT_GRAPH = re.compile(r"\A(?:\s|//[^\n]*\n|/\*(?:[^*]|\*(?!/))*\*/|#[^\n]*\n)*+(?:strict[ \t]+)?(?:di)?graph\b[ \t]*"
                        r"(?:\"[^\"\n]*\"|\w+)?[ \t\n]*\{", re.I)


@dataclass(frozen=True)
class Form:
    """One kind of a language's own forms: ``literals`` one of which every match holds (a
    substring test, far cheaper than a scan, spares most records the pattern) and the pattern."""
    literals: tuple[str, ...]
    pattern: re.Pattern

    def found_in(self, text: str) -> bool:
        return any(literal in text for literal in self.literals) and self.pattern.search(text) is not None


def forms(**kinds: tuple[tuple[str, ...], str]) -> dict[str, Form]:
    """Each kind of form as ``kind=(literals, pattern)``, the patterns read line by line (``^``, ``$``)."""
    return {kind: Form(literals, re.compile(pattern, re.M)) for kind, (literals, pattern) in kinds.items()}


def word(word: str) -> str:
    """A pattern for ``word`` at a word's start (``\\bword``) that opens with the word itself: a
    pattern opening with a literal is scanned for it at once, one opening with ``\\b`` is tried at
    every position of the text (20 times slower on a C header)."""
    return rf"{word}(?<!\w{word})"


def command(word: str) -> str:
    """A pattern for ``word`` opening a line or following a blank (a command, Vim's `let`, `hi`),
    written word first as ``word`` is."""
    return rf"{word}(?<!\S{word})"


@dataclass(frozen=True)
class Signature:
    """A language's own forms: ``literals`` one of which its files hold, the ``forms`` by kind,
    and how many different kinds make it sure (one more where a ``doubt`` word occurs). Each
    kind is looked for alone, and the look stops once enough are found (one scan of a record
    for every kind at once cost 2.4 ms, Magika's 8)."""
    literals: tuple[str, ...]
    forms: dict[str, Form]
    needed: int
    doubt: tuple[str, ...] = ()  # words that make the near language likelier: one form more is needed

    def found_in(self, text: str) -> bool:
        """Whether one of the literals and enough kinds of forms are in ``text`` (a table that
        looks for many signatures' literals at once calls ``enough_forms`` itself)."""
        return any(literal in text for literal in self.literals) and self.enough_forms(text)

    def enough_forms(self, text: str) -> bool:
        """Whether enough kinds of forms are in ``text``, one of the literals being there."""
        needed = self.needed + any(word in text for word in self.doubt)
        return _at_least(needed, len(self.forms), (form.found_in(text) for form in self.forms.values()))


# Marks of a document or program that holds an example of a language (a Markdown fence, a
# reStructuredText code directive, a LaTeX environment, a closing tag, a docstring): one kind more
# is needed there.
EXAMPLES = ("```", ".. code", "\\begin{", "</", '"""', "'''")


def signed(literals: tuple[str, ...], kinds: dict[str, Form], needed: int, *doubt: str) -> Signature:
    """A signature that needs one kind more where the text holds an example's marks (or a
    ``doubt`` word of its own)."""
    return Signature(literals, kinds, needed, (*doubt, *EXAMPLES))


@dataclass(frozen=True)
class CallSignature:
    """A language whose different calls or sections are its forms: each different first word of a
    match of ``forms`` is one kind (`subdir('a'` and `subdir('b'` one, `executable(` another)."""
    literals: tuple[str, ...]
    forms: re.Pattern
    needed: int

    def found_in(self, text: str) -> bool:
        if not any(literal in text for literal in self.literals):
            return False
        return _kinds(self.forms, text, self.needed) >= self.needed


# Special forms only one Lisp writes (a form opening a list); each counted once however often it occurs.
_LISP_FORMS = {
    "Scheme": re.compile(r"\((?:define[ \t]+\(|define-syntax\b|define-record-type\b|set![ \t]|let-values\b|"
                         r"call-with-current-continuation\b|call/cc\b|define-module\b|use-modules\b|import[ \t]+\()"
                         r"|(?<![\w#])#[tf](?![\w\\])"),
    EMACS_LISP: re.compile(r"\((?:defcustom|defgroup|defface|interactive|provide[ \t]+'|require[ \t]+'|add-hook[ \t]+'|"
                           r"define-key|global-set-key|setq-local|defvar-local|with-current-buffer|save-excursion|"
                           r"point-min|point-max|buffer-substring|define-minor-mode|define-derived-mode|"
                           r"package-initialize|add-to-list|setq-default|with-eval-after-load|message[ \t]+\")\b"
                           r"|\b(?:load-path|emacs-version|user-emacs-directory|byte-compile-file)\b"),
    "Common Lisp": re.compile(r"\((?:in-package|defpackage|defmethod|defclass|defgeneric|declaim|defparameter|"
                              r"defconstant|format[ \t]+t\b|asdf:|ql:quickload)\b"),
}

_MESON_CALLS = ("executable(", "library(", "both_libraries(", "declare_dependency(", "custom_target(",
                "configure_file(", "install_")
_MESON_FORMS = re.compile(r"\bmeson\.\w+\(|^[ \t]*(?:endif|endforeach)[ \t]*(?:#.*)?$|^[ \t]*subdir\([ \t]*'"
                          r"|^project\([ \t]*'|\b(?:executable|shared_library|static_library|both_libraries|"
                          r"declare_dependency|custom_target|configure_file|install_headers|install_data)\(", re.M)
_RD_SECTIONS = re.compile(r"^\\(?:name|alias|title|description|usage|arguments|value|examples|seealso|keyword|"
                          r"docType|encoding)\{", re.M)
# Definitions and launches, not the bare words (a lexer or a translator lists those in strings).
_CUDA_FORMS = forms(
    kernel=(("__global__",), r"\b__global__[ \t]+(?:\w+[ \t]+)*void[ \t]+\w+[ \t]*\("),
    function=(("__device__",),
              r"\b__device__[ \t]+(?:(?:__host__|__forceinline__|inline|static)[ \t]+)*[\w:<>]+[ \t*&]+\w+[ \t]*\("),
    shared=(("__shared__", "__constant__"), r"\b__(?:shared|constant)__[ \t]+\w+"),
    launch=(("<<<",), r"\w[ \t]*<<<[^;\n]*>>>[ \t]*\("),
    index=(("threadIdx", "blockIdx", "blockDim", "gridDim"),
           r"(?<![\w\"'])(?:threadIdx|blockIdx|blockDim|gridDim)\.[xyz]\b(?![\"'])"),
    barrier=(("__syncthreads",), r"\b__syncthreads[ \t]*\([ \t]*\)[ \t]*;"),
    runtime=(("cuda",), r"\bcuda(?:Malloc|Memcpy|Free|DeviceSynchronize|GetLastError)\w*[ \t]*\("),
)
# a Debian package's control file: its paragraphs' own fields (RFC 822 headers name others)
_DEBIAN_CONTROL_FIELDS = forms(
    source=(("Source:",), r"^Source:[ \t]*[a-z0-9][a-z0-9.+-]+[ \t]*$"),
    package=(("Package:",), r"^Package:[ \t]*[a-z0-9][a-z0-9.+-]+[ \t]*$"),
    maintainer=(("Maintainer:", "Uploaders:"), r"^(?:Maintainer|Uploaders):"),
    depends=(("Depends", "Conflicts"), r"^(?:Build-)?(?:Depends|Conflicts)(?:-Indep|-Arch)?:"),
    architecture=(("Architecture:",), r"^Architecture:[ \t]*(?:any|all|[a-z0-9-]+)\b"),
    standards=(("Standards-Version:",), r"^Standards-Version:"),
    section=(("Section:", "Priority:"), r"^(?:Section|Priority):[ \t]*[a-z]+"),
)
# LDAP's interchange format: entries named by their distinguished name, base64 values after `::`
_LDIF_FORMS = forms(
    dn=(("dn:",), r"^dn::?[ \t]*(?:\w[\w-]*=|[A-Za-z0-9+/]{8})"),
    object_class=(("objectClass:",), r"^objectClass:[ \t]*\w"),
    change=(("changetype:",), r"^changetype:[ \t]*(?:add|modify|delete|modrdn|moddn)\b"),
    version=(("version:",), r"^version:[ \t]*1[ \t]*$"),
    base64=(("::",), r"^[\w;-]+::[ \t]*[A-Za-z0-9+/]{4,}={0,2}[ \t]*$"),
    operation=(("add:", "replace:", "delete:"), r"^(?:add|replace|delete):[ \t]*\w+[ \t]*$"),
)
# an RPM spec: its preamble's tags and its build sections
_RPM_SPEC_FORMS = forms(
    name=(("Name:",), r"^Name:[ \t]*\S"),
    release=(("Release:",), r"^Release:[ \t]*\S"),
    requires=(("BuildRequires:", "BuildArch:", "BuildRoot:"), r"^Build(?:Requires|Arch|Root):"),
    description=(("%description",), r"^%description\b"),
    prep=(("%prep",), r"^%prep\b"),
    build=(("%build",), r"^%build\b"),
    install=(("%install",), r"^%install\b"),
    files=(("%files",), r"^%files\b"),
    changelog=(("%changelog",), r"^%changelog\b"),
    macro=(("%define", "%global"), r"^%(?:define|global)[ \t]+\w"),
    setup=(("%setup", "%autosetup"), r"^%(?:setup|autosetup)\b"),
)
# QML: Qt Quick's imports, object ids, typed properties, anchors and signal handlers
_QML_FORMS = forms(
    qt_import=(("import",), r"^import[ \t]+Qt[\w.]*(?:[ \t]+\d+(?:\.\d+)?)?[ \t]*$"),
    id=(("id:",), r"^[ \t]*id:[ \t]*\w+[ \t;]*$"),
    property=(("property",), r"^[ \t]*(?:readonly[ \t]+|default[ \t]+)?property[ \t]+[\w.<>]+[ \t]+\w+"),
    anchors=(("anchors.",), r"\banchors\.\w+[ \t]*:"),
    handler=(("on",), r"^[ \t]*on[A-Z]\w*[ \t]*:"),
)
# a document type definition: markup declarations (an XML document's internal subset may hold some)
_DTD_DECLARATIONS = forms(**{declaration.lower(): ((f"<!{declaration}",), rf"^[ \t]*<!{declaration}[ \t\n]")
                             for declaration in ("ELEMENT", "ATTLIST", "ENTITY", "NOTATION")})
# Vim script: syntax items and their highlighting, scoped variables, functions, mappings, autocommands
_VIM_FORMS = forms(
    syntax=(("syn ", "syn\t", "syntax ", "syntax\t"),
            r"^[ \t]*syn(?:tax)?[ \t]+(?:match|keyword|region|cluster|sync|case|include)[ \t]"),
    highlight=(("hi",), command("hi") + r"(?:ghlight)?!?[ \t]+(?:(?:def(?:ault)?[ \t]+)?link[ \t]+\w+[ \t]+\w+|"
                                          r"\w+[ \t]+(?:term|cterm|gui)(?:fg|bg)?=)"),
    scoped=(("let", "exists"), command("let") + r"[ \t]+[gbwtsl]:\w|" + word("exists") + r"\([\"'][gbwtsl]:\w"),
    function=(("fu!", "function!", "endf"),
              r"^[ \t]*fu(?:nction)?![ \t]+[\w:#.<>]+[ \t]*\(|^[ \t]*endf(?:unction)?[ \t]*$"),
    # a mode's map command over a key (`nnoremap <silent> ,w`), never an assignment (`map = {}`)
    mapping=(("noremap", "nmap", "vmap", "xmap", "smap", "omap", "imap", "cmap", "map <"),
             r"^[ \t]*(?:[nvxsoic]?noremap|[nvxsoic]map)[ \t]+(?:<(?:buffer|silent|expr|unique)>[ \t]*)*"
             r"[^\s=+\-*/%&|^!]|^[ \t]*map <"),
    autocmd=(("augroup", "autocmd"), r"^[ \t]*(?:augroup[ \t]+\w|autocmd!?[ \t]+\w+[ \t,])"),
    settings=(("setlocal",), r"^[ \t]*setlocal[ \t]+\w"),
)
# Languages whose files a content model reads as a near one, by the forms only they write. The
# literals spare most records the forms' scan (a scan of every record cost 0.5 ms, Magika's 8).
_SIGNATURES = {
    # before Meson: Vim script writes `endif` lines and calls `executable(`
    "VimL": Signature(("syn", "hi", "let", "fu", "map", "au", "setlocal"), _VIM_FORMS, 2),
    "Meson": CallSignature(("meson.", "endif", "endforeach", "subdir(", "project(", *_MESON_CALLS), _MESON_FORMS, 2),
    "Rd": CallSignature(("\\name{",), _RD_SECTIONS, 3),
    "CUDA": Signature(("__global__", "<<<", "threadIdx", "__device__"), _CUDA_FORMS, 2),
    "Debian Control file": Signature(("Source:", "Package:"), _DEBIAN_CONTROL_FIELDS, 3),
    "LDIF": Signature(("dn:",), _LDIF_FORMS, 2),
    "RPMSpec": Signature(("%description", "%files", "%prep"), _RPM_SPEC_FORMS, 3),
    "QML": Signature(("import Qt",), _QML_FORMS, 3),
    "DTD": Signature(("<!ELEMENT", "<!ATTLIST"), _DTD_DECLARATIONS, 2, doubt=("<!DOCTYPE",)),
}

# Within a language a model leans to (a Pygments name), the dialects or supersets it does not tell
# apart, each by forms the near language never writes (two kinds at least: one may sit in a
# comment or a string).
_D_FORMS = forms(
    modules=(("module", "import"),
             r"^[ \t]*(?:module|(?:public[ \t]+|static[ \t]+)?import)[ \t]+\w+(?:\.\w+)*[ \t]*[;,:]"),
    linkage=(("extern",), word("extern") + r"[ \t]*\((?:C|C\+\+|D|Windows|System)\)"),
    alias=(("alias",), r"^[ \t]*alias[ \t]+\w"),
    instance=(("!(",), r"\b(?!operator!)\w+!\("),
    unittest=(("unittest",), word("unittest") + r"[ \t]*\{"),
    attribute=(("@safe", "@trusted", "@nogc"), r"@(?:safe|trusted|nogc)\b"),
    immutable=(("immutable",), word("immutable") + r"\b"),
    foreach=(("foreach",), word("foreach") + r"(?:_reverse)?[ \t]*\([^;)\n]*;"),
    write=(("write",), word("write") + r"(?:f?ln|f)[ \t]*\("),
    pragma=(("pragma",), word("pragma") + r"[ \t]*\((?:msg|lib)\b"),
)
# Cython's declarations at the top level (a Python docstring's example is indented).
_CYTHON_FORMS = forms(
    cdef=(("cdef", "cpdef"), r"^c(?:p)?def[ \t]+\w"),
    ctypedef=(("ctypedef",), r"^ctypedef[ \t]+\w"),
    cimport=(("cimport",), r"^(?:from[ \t]+[\w.]+[ \t]+)?cimport[ \t]+\w"),
    extern=(("cdef",), r"^cdef[ \t]+extern[ \t]+from\b"),
    local=(("cdef", "cpdef"), r"^[ \t]+c(?:p)?def[ \t]+\w"),
    nogil=(("nogil",), r"\bwith[ \t]+nogil[ \t]*:|\)[ \t]*nogil\b"),
    directive=(("cython:",), r"^#[ \t]*cython:[ \t]*\w+[ \t]*="),
)
_NIM_FORMS = forms(
    routine=(("proc", "func", "iterator", "template", "macro", "method", "converter"),
             r"^[ \t]*(?:proc|func|iterator|template|macro|method|converter)[ \t]+`?\w+`?\*?[ \t]*(?:\[[^\]\n]*\])?"
             r"\([^\n]*\)[^\n]*=[ \t]*(?:#[^\n]*)?$"),
    pragma=(("{.",), r"\{\.[ \t]*\w+[^\n{}]*?\.?\}"),
    binding=(("let", "var", "const"),
             r"^[ \t]*(?:let|var|const)(?:[ \t]+\w+\*?[ \t]*[:=]|[ \t]*\n[ \t]+\w+\*?[ \t]*[:=])"),
    discard=(("discard",), r"^[ \t]*discard[ \t]+[\w(]"),
    object=(("object",), r"=[ \t]*(?:ref[ \t]+)?object(?:[ \t]+of[ \t]+\w+)?[ \t]*(?:#.*)?$"),
    main=(("isMainModule",), r"\bwhen[ \t]+isMainModule\b"),
    echo=(("echo",), r"^[ \t]*echo[ \t(]"),
)
_VALA_FORMS = forms(
    glib=(("GLib",), r"^[ \t]*using[ \t]+GLib[ \t]*;|\bGLib\.\w"),
    ownership=(("owned",), r"\b(?:unowned|owned)[ \t]+\w"),
    ccode=(("[CCode",), r"\[CCode[ \t]*\("),
    errordomain=(("errordomain",), r"\berrordomain[ \t]+\w"),
    construct=(("construct",), r"\bconstruct[ \t]*\{"),
    signal=(("signal",), r"\bsignal[ \t]+\w+[\w.<>?]*[ \t]+\w+[ \t]*\("),
    connect=((".connect",), r"\.connect[ \t]*\("),
    throws=(("throws",), r"\)[ \t]*throws[ \t]+\w"),
    template=(("[Gtk",), r"\[Gtk(?:Template|Child|Callback)\b"),
    dbus=(("[DBus",), r"\[DBus[ \t]*\("),
    printf=((".printf",), r"\b(?:stdout|stderr)\.printf[ \t]*\("),
)
_SYSTEMVERILOG_FORMS = forms(
    logic=(("logic",), r"\blogic\b"),
    always=(("always_",), r"\balways_(?:comb|ff|latch)\b"),
    bind=(("bind",), r"^[ \t]*bind[ \t]+\w"),
    assertion=(("assert", "assume", "cover"), r"\b(?:assert|assume|cover)[ \t]+property\b|\bassert[ \t]*\("),
    unit=(("interface", "class", "package", "program"),
          r"^[ \t]*(?:(?:virtual[ \t]+)?(?:interface|class|package|program)[ \t]+\w+|"
          r"endinterface|endclass|endpackage|endprogram)\b"),
    typedef=(("typedef",), r"\btypedef[ \t]+(?:enum|struct|union)\b"),
    import_=(("import",), r"^[ \t]*import[ \t]+\w+::"),
    fill=(("'",), r"[=(,][ \t]*'[01xzXZ](?![\w'])"),
    wildcard=(("(.*)",), r"\(\.\*\)"),
    modport=(("modport",), r"\bmodport\b"),
    unique=(("unique", "priority"), r"\b(?:unique|unique0|priority)[ \t]+(?:case|if)\b"),
)
_SYSTEMD_UNIT_KINDS = ("Service", "Socket", "Timer", "Mount", "Automount", "Swap", "Path", "Slice", "Scope")
_SYSTEMD_ORDER = ("WantedBy", "RequiredBy", "After", "Before", "Requires", "Wants", "BindsTo", "PartOf", "Conflicts")
_SYSTEMD_FORMS = forms(
    unit=(("[Unit]",), r"^\[Unit\]"),
    kind=(tuple(f"[{kind}]" for kind in _SYSTEMD_UNIT_KINDS), rf"^\[(?:{'|'.join(_SYSTEMD_UNIT_KINDS)})\]"),
    install=(("[Install]",), r"^\[Install\]"),
    exec=(("Exec",), r"^Exec(?:Start|Stop|Reload)(?:Pre|Post)?="),
    order=(tuple(f"{key}=" for key in _SYSTEMD_ORDER), rf"^(?:{'|'.join(_SYSTEMD_ORDER)})="),
)
_DESKTOP_FORMS = forms(
    group=(("[Desktop ",), r"^\[Desktop (?:Entry|Action [\w-]+)\]"),
    keys=(("=",), r"^(?:Type|Exec|TryExec|Icon|Categories|Terminal|MimeType|StartupNotify)="),
)
# C++ in what Magika reads as C: scopes, namespaces, classes with access, templates, streams, its own headers
_CPP_HEADERS = ("iostream|string|vector|map|memory|algorithm|sstream|fstream|utility|functional|unordered_map|thread|"
                "mutex|array|stdexcept|iomanip|chrono|cstdio|cstdlib|cstring|cmath|cstdint|cassert")
_CPP_FORMS = forms(
    scope=(("::",), r"\b(?:std|boost)::\w|^[\w:<>*& \t]*\b\w+::~?\w+[ \t]*\([^;\n]*\)[ \t]*(?:const[ \t]*)?\{?[ \t]*$"),
    namespace=(("namespace",), r"^[ \t]*(?:namespace[ \t]+\w+[ \t]*\{|using[ \t]+namespace[ \t]+\w+[ \t]*;)"),
    access=(("public", "private", "protected"),
            r"^[ \t]*(?:public|private|protected)[ \t]*:"
            r"|^[ \t]*class[ \t]+\w+[ \t]*:[ \t]*(?:public|private|protected)\b"),
    template=(("template",), r"^[ \t]*template[ \t]*<"),
    casts=(("_cast",), r"\b(?:static|dynamic|reinterpret|const)_cast[ \t]*<"),
    stream=(("cout", "cerr", "cin"), r"\b(?:cout|cerr|cin)[ \t]*(?:<<|>>)"),
    headers=(("include",), rf"^#[ \t]*include[ \t]*<(?:{_CPP_HEADERS})(?:\.h)?>"),
    new=(("new",), word("new") + r"[ \t]+\w+(?:::\w+)*[ \t]*[(\[{]"),
    nullptr=(("nullptr",), word("nullptr") + r"\b"),
)
_D = Signature(("import", "module", "extern", "alias", "!(", "write"), _D_FORMS, 2)
_CPP = Signature(("::", "namespace", "public", "private", "template", "_cast", "cout", "cerr", "#include", "new ",
                  "nullptr"), _CPP_FORMS, 2, doubt=("__cplusplus",))
_OBJECTIVE_C_FORMS = forms(
    interface=(("@interface", "@implementation", "@protocol"), r"^@(?:interface|implementation|protocol)[ \t]+\w+"),
    end=(("@end",), r"^@end\b"),
    method=(("-", "+"), r"^[-+][ \t]*\([\w \t*<>]+\)[ \t]*\w+[ \t]*(?::|\{|;|$)"),
    property=(("@property",), r"^@property[ \t]*\("),
    message=(("alloc]", "new]", "class]"), r"\[[A-Z]\w*[ \t]+(?:alloc|new|class)\]"),
    import_=(("#import",), r"^#import[ \t]*[<\"]"),
)
# Microsoft's and PostgreSQL's procedural SQL: batches, variables and system functions; PL/pgSQL's
# language, RAISE, PERFORM, assignments and triggers (a dollar-quoted body alone is any PostgreSQL function's)
_TRANSACT_SQL_FORMS = forms(
    batch=(("GO", "go"), r"^[ \t]*(?i:GO)[ \t]*(?:--[^\n]*)?$"),
    variable=(("@",), r"(?i:\bDECLARE)[ \t]+@\w+|@@(?i:ROWCOUNT|IDENTITY|ERROR|TRANCOUNT|VERSION|SPID|FETCH_STATUS)\b"),
    schema=(("[dbo]", "dbo."), r"\[dbo\]\.\[|\bdbo\.\w+"),
    settings=(("SET ", "set "), r"(?i:\bSET[ \t]+(?:NOCOUNT|ANSI_NULLS|QUOTED_IDENTIFIER|XACT_ABORT)[ \t]+(?:ON|OFF))"),
    types=(("VARCHAR", "varchar", "IDENTITY", "identity"), r"(?i:\bN?VARCHAR[ \t]*\([ \t]*MAX[ \t]*\)|"
                                                         r"\bIDENTITY[ \t]*\([ \t]*\d+[ \t]*,[ \t]*\d+[ \t]*\))"),
    try_=(("TRY", "try", "CATCH", "catch"), r"(?i:\bBEGIN[ \t]+(?:TRY|CATCH)\b)"),
    execute=(("EXEC", "exec"), r"(?i:\bEXEC(?:UTE)?)[ \t]+(?:sp_|xp_|dbo\.)\w+"),
)
_PLPGSQL_FORMS = forms(
    language=(("plpgsql",), r"(?i:LANGUAGE)[ \t]+'?(?i:plpgsql)'?"),
    # a function's dollar-quoted body or set result: PostgreSQL's own, in SQL functions too (one kind)
    function=(("$", "RETURNS", "returns"), r"(?i:\bAS)[ \t]+\$\w*\$|(?i:\bRETURNS[ \t]+(?:SETOF|TABLE[ \t]*\(|void)\b)"),
    raise_=(("RAISE", "raise"), r"(?i:\bRAISE[ \t]+(?:NOTICE|EXCEPTION|WARNING|INFO|DEBUG|LOG))\b"),
    trigger=(("TRIGGER", "trigger"), r"(?i:\bRETURNS[ \t]+TRIGGER\b)"),
    trigger_row=(("NEW.", "OLD.", "new.", "old."), r"(?i:\b(?:NEW|OLD))\.\w+"),
    perform=(("PERFORM", "perform", "DIAGNOSTICS", "diagnostics"), r"(?i:^[ \t]*(?:PERFORM[ \t]+\w|GET[ \t]+"
                                                                 r"(?:STACKED[ \t]+)?DIAGNOSTICS\b))"),
    assignment=((":=",), r"^[ \t]*\w+[ \t]*:=[ \t]*[^=\n]*;"),
)
# Mojo, Python's superset for systems code: its functions, structs, bindings, argument conventions and
# decorators (Python writes `def`, `class` and plain assignments)
_MOJO_FORMS = forms(
    fn=(("fn ",), r"^[ \t]*fn[ \t]+\w+(?:\[[^\]\n]*\])?[ \t]*\([^)\n]*\)[ \t]*(?:raises[ \t]*)?(?:->[ \t]*[^:\n]+)?:"
                  r"[ \t]*(?:#[^\n]*)?$"),
    struct=(("struct ", "trait "), r"^[ \t]*(?:struct|trait)[ \t]+\w+(?:\[[^\]\n]*\])?(?:\([^)\n]*\))?[ \t]*:[ \t]*$"),
    binding=(("var ", "let ", "alias "), r"^[ \t]*(?:var|let|alias)[ \t]+\w+[ \t]*(?::[ \t]*[\w\[\], ]+)?="),
    convention=(("inout ", "owned ", "borrowed ", "mut "),
                r"[(,][ \t]*(?:inout|owned|borrowed|mut)[ \t]+\w+[ \t]*:"),
    decorator=(("@value", "@register_passable", "@always_inline", "@parameter", "@fieldwise_init"),
               r"^[ \t]*@(?:value|register_passable|always_inline|parameter|fieldwise_init)\b"),
    python=(("from python import",), r"^from[ \t]+python[ \t]+import[ \t]+Python\b"),
)
# React's markup in TypeScript: its attributes, components, fragments and returned elements (an
# Angular component's inline template writes `class=`, lower-case elements and `(click)=`)
_TSX_FORMS = forms(
    class_name=(("className=",), r"\bclassName=[{\"']"),
    event_prop=(("={",), r"<[A-Za-z][\w.]*[^<>\n]*?[ \t]on[A-Z]\w*=\{|^[ \t]+on[A-Z]\w*=\{"),
    component=(("/>",), r"<[A-Z][\w.]*(?:[ \t\n][^<>]*?)?/>"),
    fragment=(("<>", "</>"), r"<>[ \t]*$|^[ \t]*</>"),
    returned=(("return",), r"\breturn[ \t]*\([ \t]*\n[ \t]*<[A-Za-z>]|\breturn[ \t]+<[A-Za-z][\w.]*[ \t>]"),
    react=(("react", "React."), r"^import[^\n]*\bfrom[ \t]+[\"']react(?:-dom)?[\"']|\bReact\.FC\b"),
)
DIALECTS: dict[str, dict[str, Signature]] = {
    # a C header that names __cplusplus has its C++ lines for C++ callers (`extern "C"`, casts in macros)
    "C": {"D": _D, "C++": _CPP},
    # Objective-C with C++ in it, read as either
    "C++": {"D": _D, "Objective-C++": Signature(("@interface", "@implementation", "#import", "@end"),
                                                _OBJECTIVE_C_FORMS, 2)},
    # any C++ form at all: Objective-C writes none (`std::string`, `template <`)
    "Objective-C": {"Objective-C++": Signature(_CPP.literals, _CPP_FORMS, 1)},
    "SQL": {"Transact-SQL": Signature(("GO", "DECLARE @", "@@", "dbo", "NOCOUNT", "BEGIN TRY", "EXEC", "go\n",
                                       "declare @"), _TRANSACT_SQL_FORMS, 2),
            "PL/pgSQL": Signature(("plpgsql", "$$", "RAISE", "raise", "PERFORM", "NEW.", "RETURNS TRIGGER"),
                                  _PLPGSQL_FORMS, 2)},
    "Python": {"Cython": Signature(("cdef", "cpdef", "cimport", "ctypedef", "nogil"), _CYTHON_FORMS, 2),
               "Nimrod": Signature(("proc ", "{.", "let", "var", "discard", "echo"), _NIM_FORMS, 2),
               "Mojo": Signature(("fn ", "struct ", "var ", "alias ", "inout ", "owned ", "@value",
                                  "from python import"), _MOJO_FORMS, 2)},
    "C#": {"Vala": Signature(("GLib", "owned", "CCode", "errordomain", "construct", "signal", "connect", "throws",
                              "[Gtk", "[DBus", "printf"), _VALA_FORMS, 2)},
    "verilog": {"systemverilog": Signature(("logic", "always_", "bind", "assert", "class", "interface", "package",
                                            "program", "typedef", "import", "'", ".*", "modport", "unique",
                                            "priority"), _SYSTEMVERILOG_FORMS, 2)},
    "TypeScript": {"TSX": Signature(("className=", "/>", "<>", "return (", "return <", "react"), _TSX_FORMS, 2)},
    "INI": {"Systemd": Signature(("[Unit]", "[Install]", "[Service]", "[Socket]", "[Timer]"), _SYSTEMD_FORMS, 3),
            "Desktop file": Signature(("[Desktop ",), _DESKTOP_FORMS, 2)},
}

# Fixed-form Fortran: columns 1-5 hold a label or nothing, column 6 a continuation mark, statements
# begin in column 7; comments are marked in column 1 (c, C, * or !).
_FIXED_COMMENT = re.compile(r"\*|[cC](?:[ \t\-=*+.]|$)|[ \t]*!|[ \t]*$")   # `call x` in column 1 is free form's
_FIXED_STATEMENT = re.compile(r"(?:[ \d]{5}[ 0]|\t)[ \t]*\S")
_FIXED_CONTINUATION = re.compile(r"(?:[ \d]{5}[^\w\s]| {5}[1-9]|\t[1-9])")
# a DNS zone (master) file's resource record: [owner] [TTL] [class] TYPE RDATA, the TTL and class in either order
_RR_TYPES = ("A|AAAA|NS|MX|CNAME|SOA|TXT|PTR|SRV|CAA|DS|DNSKEY|RRSIG|NSEC|NSEC3|NSEC3PARAM|TLSA|SSHFP|NAPTR|HINFO|"
             "SPF|ZONEMD|CDS|CDNSKEY|SVCB|HTTPS|LOC|DNAME|URI|OPENPGPKEY|SMIMEA|CERT|RP|AFSDB")
_ZONE_RECORD = re.compile(r"(?:\S+)?(?:[ \t]+(?:\d+[smhdwSMHDW]?|IN|CH|HS)){0,2}[ \t]+(?P<type>" + _RR_TYPES
                          + r")(?:[ \t]|$)")
_ZONE_DIRECTIVE = re.compile(r"\$(?:ORIGIN|TTL|INCLUDE|GENERATE)\b")
_PROPERTY = re.compile(r"[ \t]*([A-Za-z_][\w.-]*)[ \t]*([=:])(.*)")   # keys as Java's tools write them


def from_conventions(text: str) -> str | None:
    """A language its own file conventions name: Emacs Lisp's header, footer or file variable
    and its directory-local variables, Racket's ``#lang`` line, PostScript's ``%!`` line, DOT's
    graph statement, literate Agda's Markdown code blocks. Read before any model, as a modeline is."""
    if ";;;" in text or "lexical-binding" in text:
        if _EMACS_LISP_CONVENTIONS.search(text):
            return EMACS_LISP
    if text.lstrip()[:1] in ("(", ";") and _DIR_LOCALS.match(text):
        return EMACS_LISP
    if "#lang" in text[:4096] and _RACKET_MODULE.match(text):
        return "Racket"
    if text.startswith(("%!PS", "%!\n", "%!\r", "%!FontType")):   # PostScript's first line: `%!PS-Adobe-3.0`, `%!`
        return "PostScript"
    if "graph" in text[:4096] and _DOT_GRAPH.match(text[:65536]):
        return "Graphviz"
    if text.count("```agda") >= 2 and _LITERATE_AGDA_MODULE.search(text):
        return "Literate Agda"   # Agda's Markdown form: its code in agda blocks, one of them declaring the module
    return None


# Examples in a document, not the document's own language: a Markdown fence and what it holds, a
# reStructuredText literal block (a paragraph ending in `::`, then indented lines)
_LITERAL_BLOCK = re.compile(r"::[ \t]*\n(?:[ \t]*\n)+(?:[ \t]+[^\n]*\n|[ \t]*\n)*")


def outside_examples(text: str) -> str:
    """The text without a document's examples: the lines outside Markdown's fenced code blocks (one
    left open runs to the end, as in CommonMark; read line by line, as a pattern for a fence would
    scan to the end from every opening) and outside reStructuredText's literal blocks."""
    if "```" in text:
        kept, inside = [], False
        for line in text.split("\n"):
            if line.lstrip(" \t").startswith("```"):
                inside = not inside
            elif not inside:
                kept.append(line)
        text = "\n".join(kept)
    if "::\n" in text:
        text = _LITERAL_BLOCK.sub("::\n", text)
    return text


def by_signature(text: str) -> str | None:
    """A language that neither content model knows, where enough of its own forms are present
    outside a document's examples (a README's fenced CUDA kernel or Vim settings is not either)."""
    forms_text = outside_examples(text)
    for language, signature in _SIGNATURES.items():
        if signature.found_in(forms_text):
            return language
    if _properties_layout(text):
        return "Properties"
    if _email_layout(text):
        return "E-mail"
    return "Zone" if _zone_layout(text) else None


def dialect_of(name: str, text: str, sure: bool) -> str | None:
    """The dialect or superset of ``name`` (the language a model leans to, ``sure`` or not) that
    the text's own forms show, or None where it shows none. The Lisps are told apart by which
    has the most of its forms, not by a threshold, so only within a label the model is sure of."""
    if name == "Common Lisp":
        if not sure:
            return None
        dialect = _lisp_dialect(text)
        return dialect if dialect != name else None
    if name == "Fortran":
        return "FortranFixed" if _fixed_form(text) else None
    for dialect, signature in DIALECTS.get(name, {}).items():
        if signature.found_in(text):
            return dialect
    return None


def _kinds(forms: re.Pattern, text: str, enough: int | None = None) -> int:
    """How many different forms of ``forms`` the text writes (each different first word one kind,
    whatever its arguments and spacing: `subdir('a'` and `subdir('b'` are one, `(define (f)` and
    `(define-syntax` two), counting no further than ``enough``."""
    kinds = set()
    for match in forms.finditer(text):
        kinds.add(re.split(r"[\s('{]", match.group().strip().lstrip("("), maxsplit=1)[0] or match.group())
        if len(kinds) == enough:
            break
    return len(kinds)


def _at_least(needed: int, kinds: int, found) -> bool:
    """Whether ``needed`` of the ``found`` answers (one per kind, read lazily, in turn) are true:
    the look stops at the answer that decides it either way (too many kinds missing is a no)."""
    spare = kinds - needed
    for answer in found:
        needed -= bool(answer)
        spare -= not answer
        if needed <= 0 or spare < 0:
            break
    return needed <= 0


def _lisp_dialect(text: str) -> str:
    """Which Lisp a file Magika reads as Lisp is written in: the dialect with the most of its own
    special forms, Common Lisp (what Magika's label was trained on) when none has more."""
    kinds = {dialect: _kinds(pattern, text) for dialect, pattern in _LISP_FORMS.items()}
    common = kinds["Common Lisp"]
    best = max(("Scheme", EMACS_LISP), key=lambda dialect: kinds[dialect])
    return best if kinds[best] > common else "Common Lisp"


def _fixed_form(text: str) -> bool:
    """Every statement line keeps columns 1-6 for a label and a continuation mark, and the file
    writes what free form cannot: a continuation mark in column 6 or a comment letter in column 1."""
    statements = marks = 0
    for line in text.splitlines():
        if _FIXED_COMMENT.match(line) or line.startswith("#"):   # comments, blanks, preprocessor lines
            marks += line[:1] in ("c", "C", "*")
            continue
        if _FIXED_CONTINUATION.match(line):
            marks += 1
        elif not _FIXED_STATEMENT.match(line):
            return False           # a statement within columns 1-6: free form
        statements += 1
    return statements >= 2 and marks > 0


def _properties_layout(text: str) -> bool:
    """Java properties: every logical line a comment (``#``, ``!``) or ``key=value`` (a trailing
    backslash continues the value), no section, most keys dotted (``log4j.rootLogger``) and set
    with ``=`` (YAML's flat dotted keys take ``:``), values unquoted (TOML's take quoted strings)."""
    if "=" not in text:
        return False
    keys = dotted = equals = quoted = 0
    continued = False
    for line in text.splitlines():
        if continued:
            continued = line.endswith("\\")
            continue
        stripped = line.strip()
        if not stripped or stripped[0] in "#!":
            continue
        match = _PROPERTY.fullmatch(line)
        if match is None:
            return False
        key, separator, value = match.groups()
        keys += 1
        dotted += "." in key
        equals += separator == "="
        quoted += value.strip()[:1] in ("\"", "'", "[", "{")
        continued = line.endswith("\\")
    return keys >= 3 and dotted * 2 >= keys and equals * 2 >= keys and quoted * 2 < keys


_UNIFIED_DIFF = re.compile(r"^--- \S[^\n]*\n\+\+\+ \S[^\n]*\n@@ ", re.M)
_MAIL_FIELD = re.compile(r"([!-9;-~]+):")         # a header field's name: printable ASCII but the colon
_MAIL_FIELDS = frozenset(("to", "cc", "subject", "date", "message-id", "received", "return-path", "mime-version",
                          "in-reply-to", "references", "reply-to"))


def _email_layout(text: str) -> bool:
    """An e-mail message (RFC 5322), or a mailbox of them: it opens with a header block (an mbox
    `From ` line may come first), every line a field (`Name: value`) or a folded continuation,
    a blank line after it, and the block names its sender and two other fields of a message. A
    patch mailed by `git format-patch` is a diff first."""
    if not text.startswith("From") and "From:" not in text[:8192]:
        return False
    if _UNIFIED_DIFF.search(text):
        return False
    lines = text.splitlines()
    fields: set[str] = set()
    for line in lines[1:] if lines[0].startswith("From ") else lines:
        if not line.strip():
            break
        if line[0] in " \t" and fields:
            continue                       # a folded field's next line
        field = _MAIL_FIELD.match(line)
        if field is None:
            return False
        fields.add(field.group(1).lower())
    else:
        return False                       # no body: a block of fields alone is no message
    return "from" in fields and len(fields & _MAIL_FIELDS) >= 2


def _zone_layout(text: str) -> bool:
    """A DNS zone file (RFC 1035, section 5): every line outside parentheses a comment (``;``), a
    directive (``$ORIGIN``, ``$TTL``) or a resource record, at least three records, and an SOA
    record or a directive among them (a fragment of records alone is no file of its own)."""
    if " IN" not in text and "\tIN" not in text and "$ORIGIN" not in text and "$TTL" not in text:
        return False
    records = anchors = depth = 0
    for line in text.splitlines():
        code = line.split(";", 1)[0]
        if depth > 0 or not code.strip():
            depth = max(0, depth + code.count("(") - code.count(")"))
            continue
        if _ZONE_DIRECTIVE.match(code):
            anchors += 1
        else:
            record = _ZONE_RECORD.match(code)
            if record is None:
                return False
            records += 1
            anchors += record.group("type") == "SOA"
        depth = max(0, code.count("(") - code.count(")"))
    return records >= 3 and anchors > 0
