"""Dialects and supersets that Magika reads as their near language (D as C, Cython and Nim as
Python, Vala as C#, SystemVerilog as Verilog, fixed-form as free-form Fortran, systemd units and
desktop entries as INI), and formats it has no label for (CUDA, Java properties): each told by
forms only it writes, and the near language's own files left as they were."""

from __future__ import annotations

import pytest

from quarry.snapshot import dialects, language

D = ("module geometry.area;\n\nimport std.stdio;\nimport std.math : PI;\n\nimmutable double unit = 1.0;\n\n"
     "double circle(double r) @safe pure\n{\n    return PI * r * r;\n}\n\nunittest\n{\n    assert(circle(unit) > 3.0);\n}\n\n"
     "void main()\n{\n    foreach (r; [1.0, 2.0, 3.0])\n        writefln(\"%s -> %s\", r, circle(r));\n}\n")
CYTHON = ("# cython: boundscheck=False\ncimport cython\nfrom libc.math cimport sqrt\n\ncdef class Point:\n"
          "    cdef public double x, y\n\n    def __init__(self, double x, double y):\n        self.x = x\n        self.y = y\n\n"
          "cpdef double norm(Point p) nogil:\n    return sqrt(p.x * p.x + p.y * p.y)\n\n"
          "def norms(points):\n    cdef Point p\n    return [norm(p) for p in points]\n")
NIM = ("import strutils, tables\n\ntype\n  Counter = object\n    seen: Table[string, int]\n\n"
       "proc add(c: var Counter, word: string) =\n  c.seen[word] = c.seen.getOrDefault(word) + 1\n\n"
       "proc top(c: Counter): string {.noSideEffect.} =\n  var best = 0\n  for word, n in c.seen:\n"
       "    if n > best:\n      best = n\n      result = word\n\nwhen isMainModule:\n  var c: Counter\n"
       "  for word in \"a b a c a\".splitWhitespace():\n    c.add(word)\n  echo c.top()\n")
VALA = ("using GLib;\n\nnamespace Tally {\n    public errordomain CountError {\n        EMPTY\n    }\n\n"
        "    public class Counter : Object {\n        public signal void changed (int total);\n        private int total = 0;\n\n"
        "        public void add (int n) throws CountError {\n            if (n == 0) {\n"
        "                throw new CountError.EMPTY (\"nothing to add\");\n            }\n            total += n;\n"
        "            changed (total);\n        }\n\n        public static int main (string[] args) {\n"
        "            var counter = new Counter ();\n            counter.changed.connect ((t) => {\n"
        "                stdout.printf (\"total %d\\n\", t);\n            });\n            try {\n"
        "                counter.add (2);\n            } catch (CountError e) {\n"
        "                stderr.printf (\"%s\\n\", e.message);\n            }\n            return 0;\n        }\n    }\n}\n")
SYSTEMVERILOG = ("module counter #(parameter int WIDTH = 8) (\n  input  logic clk,\n  input  logic rst_n,\n"
                 "  output logic [WIDTH-1:0] count\n);\n  typedef enum logic [1:0] {IDLE, RUN, DONE} state_t;\n"
                 "  state_t state;\n\n  always_ff @(posedge clk or negedge rst_n) begin\n"
                 "    if (!rst_n) count <= '0;\n    else count <= count + 1'b1;\n  end\n\n"
                 "  always_comb begin\n    state = (count == '1) ? DONE : RUN;\n  end\nendmodule\n")
FORTRAN_FIXED = ("C     SUM OF SQUARES, FIXED FORM\n      PROGRAM SQUARES\n      INTEGER I, N\n      REAL TOTAL\n"
                 "      PARAMETER (N = 10)\n      TOTAL = 0.0\n      DO 10 I = 1, N\n         TOTAL = TOTAL +\n"
                 "     &           REAL(I) * REAL(I)\n   10 CONTINUE\n      WRITE (*, *) 'TOTAL IS ', TOTAL\n      END\n")
CUDA = ("#include <cstdio>\n\n__global__ void scale(float *x, float a, int n)\n{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) x[i] *= a;\n}\n\nint main()\n{\n"
        "    float *x;\n    int n = 1 << 20;\n    cudaMalloc(&x, n * sizeof(float));\n"
        "    scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);\n    cudaDeviceSynchronize();\n    cudaFree(x);\n"
        "    return 0;\n}\n")
PROPERTIES = ("# messages of the settings dialog\nsettings.title=Settings\nsettings.grid.show=Show the grid\n"
              "settings.grid.spacing=Grid spacing (in points)\nsettings.save.confirm=Save the changes before \\\n"
              "    closing the window?\nsettings.units=cm\n")
SYSTEMD = ("[Unit]\nDescription=Tally counting daemon\nAfter=network-online.target\nWants=network-online.target\n\n"
           "[Service]\nType=simple\nExecStart=/usr/bin/tallyd --foreground\nRestart=on-failure\n\n"
           "[Install]\nWantedBy=multi-user.target\n")
DESKTOP = ("[Desktop Entry]\nType=Application\nName=Tally\nComment=Count things\nExec=tally %F\nIcon=tally\n"
           "Terminal=false\nCategories=Utility;\n")

DEBIAN_CONTROL = ("Source: tally\nSection: utils\nPriority: optional\nMaintainer: A. Packager <ap@example.org>\n"
                  "Build-Depends: debhelper-compat (= 13), libpopt-dev\nStandards-Version: 4.6.2\n\nPackage: tally\n"
                  "Architecture: any\nDepends: ${shlibs:Depends}, ${misc:Depends}\nDescription: count things\n"
                  " Tally counts the values it reads, one per line.\n")
LDIF = ("version: 1\n\ndn: ou=people,dc=example,dc=org\nobjectClass: organizationalUnit\nou: people\n\n"
        "dn: uid=ada,ou=people,dc=example,dc=org\nchangetype: modify\nreplace: description\n"
        "description:: QWRhIGNvdW50cyB0aGluZ3M=\n")
CPP = ("#include <vector>\n#include <cstdio>\n\nnamespace tally {\n\nclass Counter {\npublic:\n"
       "    void add(int v) { values.push_back(v); }\n    std::size_t size() const { return values.size(); }\n"
       "private:\n    std::vector<int> values;\n};\n\n}  // namespace tally\n\nint main()\n{\n"
       "    tally::Counter c;\n    c.add(1);\n    std::printf(\"%zu\\n\", c.size());\n    return 0;\n}\n")

POSTSCRIPT = ("%!PS-Adobe-3.0\n%%Title: box\n%%Pages: 1\n%%EndComments\n/inch { 72 mul } def\nnewpath\n"
              "1 inch 1 inch moveto\n2 inch 0 rlineto\n0 2 inch rlineto\nclosepath\nstroke\nshowpage\n%%EOF\n")
GRAPHVIZ = ("/* the stages of a build */\ndigraph build {\n  rankdir=LR;\n  node [shape=box];\n"
            "  fetch -> configure -> compile -> test;\n  compile -> package [label=\"release\"];\n}\n")
RPM_SPEC = ("%global debug_package %{nil}\n\nName:           tally\nVersion:        1.0\nRelease:        1%{?dist}\n"
            "Summary:        Count things\nLicense:        MIT\nSource0:        tally-%{version}.tar.gz\n"
            "BuildRequires:  gcc, make\n\n%description\nTally counts the values it reads.\n\n%prep\n%autosetup\n\n"
            "%build\n%make_build\n\n%install\n%make_install\n\n%files\n%license LICENSE\n%{_bindir}/tally\n\n"
            "%changelog\n* Mon Jan 01 2024 A. Packager <ap@example.org> - 1.0-1\n- First package\n")
QML = ("import QtQuick 2.15\nimport QtQuick.Controls 2.15\n\nRectangle {\n    id: root\n    width: 320; height: 200\n"
       "    property int count: 0\n\n    Button {\n        anchors.centerIn: parent\n        text: \"Count \" + root.count\n"
       "        onClicked: root.count += 1\n    }\n}\n")
DTD = ("<!-- a list of counts -->\n<!ELEMENT tally (count+)>\n<!ATTLIST tally name CDATA #REQUIRED>\n"
       "<!ELEMENT count (#PCDATA)>\n<!ATTLIST count unit (items|bytes) \"items\">\n<!ENTITY % version \"1.0\">\n")

ZONE = ("$ORIGIN example.org.\n$TTL 3600\n@   IN  SOA ns1.example.org. hostmaster.example.org. (\n"
        "        2024010101 ; serial\n        7200 3600 1209600 3600 )\n    IN  NS  ns1.example.org.\n"
        "    IN  MX  10 mail.example.org.\nns1     IN  A     192.0.2.53\nmail 300 IN  AAAA  2001:db8::25\n"
        "www     IN  CNAME ns1\n")
DIR_LOCALS = ";; this project's settings\n((nil . ((fill-column . 100)))\n (c-mode (c-basic-offset . 4) (indent-tabs-mode . nil)))\n"
EMACS_BUILD = ("(setq package-user-dir (expand-file-name \"elpa\" default-directory))\n(package-initialize)\n"
               "(add-to-list 'load-path default-directory)\n(message \"compiling in %s\" emacs-version)\n")

VIM_SYNTAX = ('" Vim syntax file for tally logs\nif exists("b:current_syntax")\n  finish\nendif\n\n'
              'syntax keyword tallyLevel INFO WARN ERROR\nsyntax match tallyCount /\\d\\+$/\n\n'
              'highlight default link tallyLevel Keyword\nhighlight default link tallyCount Number\n\n'
              'let b:current_syntax = "tally"\n')
VIM_PLUGIN = ('" count words on demand\nif exists("g:loaded_tally") || !executable("wc")\n  finish\nendif\n'
              'let g:loaded_tally = 1\n\nfunction! s:Count() abort\n  echo system("wc -w " . shellescape(expand("%")))\n'
              'endfunction\n\nnnoremap <silent> <leader>wc :call <SID>Count()<CR>\n')
EMAIL = ("From: Ada Byron <ada@example.org>\nTo: tally-devel@example.org\nSubject: counts by week\n"
         "Date: Mon, 7 Dec 2026 10:00:00 +0000\nMessage-ID: <20261207100000.1@example.org>\n"
         "Content-Type: text/plain; charset=utf-8\n\nThe weekly counts are attached.\n")


TRANSACT_SQL = ("SET ANSI_NULLS ON\nGO\nSET QUOTED_IDENTIFIER ON\nGO\n\nCREATE PROCEDURE [dbo].[AddCount]\n"
                "    @Label NVARCHAR(64),\n    @Step INT = 1\nAS\nBEGIN\n    SET NOCOUNT ON;\n"
                "    DECLARE @Total INT;\n    BEGIN TRY\n        UPDATE dbo.Counts SET Total = Total + @Step WHERE Label = @Label;\n"
                "        IF @@ROWCOUNT = 0\n            INSERT INTO dbo.Counts (Label, Total) VALUES (@Label, @Step);\n"
                "    END TRY\n    BEGIN CATCH\n        THROW;\n    END CATCH\nEND\nGO\n")
PLPGSQL = ("CREATE OR REPLACE FUNCTION add_count(p_label text, p_step integer DEFAULT 1)\nRETURNS integer AS $$\n"
           "DECLARE\n    v_total integer;\nBEGIN\n    UPDATE counts SET total = total + p_step WHERE label = p_label\n"
           "        RETURNING total INTO v_total;\n    IF NOT FOUND THEN\n"
           "        INSERT INTO counts (label, total) VALUES (p_label, p_step);\n        v_total := p_step;\n    END IF;\n"
           "    RAISE NOTICE 'label % now %', p_label, v_total;\n    RETURN v_total;\nEND;\n$$ LANGUAGE plpgsql;\n\n"
           "CREATE FUNCTION stamp() RETURNS trigger AS $$\nBEGIN\n    NEW.updated_at := now();\n    RETURN NEW;\nEND;\n"
           "$$ LANGUAGE plpgsql;\n")
OBJECTIVE_CPP = ("#import <Foundation/Foundation.h>\n#include <map>\n#include <string>\n\n@interface Tally : NSObject\n"
                 "- (void)add:(NSString *)label;\n- (NSInteger)total;\n@end\n\n"
                 "@implementation Tally {\n    std::map<std::string, int> _counts;\n}\n\n- (void)add:(NSString *)label {\n"
                 "    _counts[std::string([label UTF8String])] += 1;\n}\n\n- (NSInteger)total {\n    int sum = 0;\n"
                 "    for (const auto &entry : _counts) sum += entry.second;\n    return sum;\n}\n@end\n")


@pytest.mark.parametrize("text,expected", [
    (VIM_SYNTAX, "VimL"), (VIM_PLUGIN, "VimL"), (EMAIL, "E-mail"),
    (D, "D"), (CYTHON, "Cython"), (NIM, "Nimrod"), (VALA, "Vala"), (SYSTEMVERILOG, "systemverilog"),
    (FORTRAN_FIXED, "FortranFixed"), (CUDA, "CUDA"), (PROPERTIES, "Properties"), (SYSTEMD, "Systemd"),
    (DESKTOP, "Desktop file"), (DEBIAN_CONTROL, "Debian Control file"), (LDIF, "LDIF"), (CPP, "C++"),
    (POSTSCRIPT, "PostScript"), (GRAPHVIZ, "Graphviz"), (RPM_SPEC, "RPMSpec"), (QML, "QML"), (DTD, "DTD"),
    (DIR_LOCALS, "EmacsLisp"), (EMACS_BUILD, "EmacsLisp"), (ZONE, "Zone"), (TRANSACT_SQL, "Transact-SQL"),
    (PLPGSQL, "PL/pgSQL"), (OBJECTIVE_CPP, "Objective-C++")])
def test_a_dialect_or_format_is_named_by_its_own_forms(text, expected):
    assert language.detect("00000007", text.encode()[:512], text) == expected


PYTHON_WITH_EXAMPLES = ('"""Roots of a function, callable from Cython:\n\n    from roots cimport brentq\n\n'
                        '    cdef double f(double x) noexcept:\n        return x * x - 2\n"""\n\n'
                        "_missing = object()\n\n\ndef prune(items, discard=None):\n    discard = discard or set()\n"
                        "    kept = [item for item in items if item not in discard]\n    return kept or _missing\n")
CPP_OPERATORS = ("// a flag with an explicit negation\nstruct Flag {\n    bool on;\n"
                 "    Flag operator!() const { return Flag{!on}; }\n};\n\n"
                 "// immutable once built: no setter\nint count(const Flag *flags, int n)\n{\n    int total = 0;\n"
                 "    for (int i = 0; i < n; ++i)\n        total += (!flags[i]).on;\n    return total;\n}\n")
FREE_FORTRAN = ("program squares\n  implicit none\n  integer :: i\n  real :: total = 0.0\n  do i = 1, 10\n"
                "    total = total + &\n            real(i)**2\n  end do\n  print *, 'total is ', total\nend program squares\n")
C_FOR_CPP_CALLERS = ("#ifndef TALLY_H\n#define TALLY_H\n\n#ifdef __cplusplus\nextern \"C\" {\n"
                     "#define TALLY_CAST(t, v) static_cast<t>(v)\n#else\n#define TALLY_CAST(t, v) ((t)(v))\n#endif\n\n"
                     "/* returns nullptr-like NULL when empty */\nstruct tally { int *values; size_t count; };\n\n"
                     "size_t tally_count(const struct tally *t);\n\n#ifdef __cplusplus\n}\n#endif\n#endif\n")
TOML_DOTTED = 'site.title = "Tally"\nsite.base_url = "https://example.org"\nbuild.drafts = false\nbuild.output = "public"\n'
LEXER_TABLE = ("# keywords a highlighter marks in CUDA sources\nKEYWORDS = ('__global__', '__device__', '__shared__',\n"
               "            '__host__', '__constant__')\nBUILTINS = ('threadIdx', 'blockIdx', 'gridDim')\n\n\n"
               "def is_kernel(line):\n    return '__global__' in line and '<<<' not in line\n")


MYSQL_TRIGGER = ("CREATE TABLE counts (\n  label VARCHAR(64) PRIMARY KEY,\n  total INT NOT NULL DEFAULT 0,\n"
                 "  updated_at TIMESTAMP NULL\n);\n\nDELIMITER //\nCREATE TRIGGER stamp BEFORE UPDATE ON counts\n"
                 "FOR EACH ROW\nBEGIN\n  SET NEW.updated_at = NOW();\nEND//\nDELIMITER ;\n\n"
                 "CREATE FUNCTION total_of(l VARCHAR(64)) RETURNS INT\nREADS SQL DATA\n"
                 "RETURN (SELECT total FROM counts WHERE label = l);\n")
OBJECTIVE_C = ("#import <Foundation/Foundation.h>\n\n@interface Tally : NSObject\n@property (nonatomic) NSInteger total;\n"
               "- (void)add;\n@end\n\n@implementation Tally\n- (void)add {\n    self.total += 1;\n}\n@end\n\n"
               "int main(void) {\n    Tally *t = [Tally new];\n    [t add];\n    NSLog(@\"%ld\", (long)t.total);\n"
               "    return 0;\n}\n")


@pytest.mark.parametrize("text,near", [
    (PYTHON_WITH_EXAMPLES, "Python"), (CPP_OPERATORS, "C++"), (FREE_FORTRAN, "Fortran"), (C_FOR_CPP_CALLERS, "C"),
    (MYSQL_TRIGGER, "SQL"), (OBJECTIVE_C, "Objective-C")])
def test_the_near_languages_own_files_stay_as_they_are(text, near):
    # forms in a docstring's indented example, `= object()`, `discard =`, `operator!(` (C++, not D),
    # `&` continuations, a C header's lines for C++ callers, MySQL's trigger and function (`NEW.x`, `RETURNS`),
    # Objective-C without C++
    assert dialects.dialect_of(near, text, sure=True) is None


XML_WITH_SUBSET = ("<?xml version=\"1.0\"?>\n<!DOCTYPE tally [\n  <!ELEMENT tally (count+)>\n"
                   "  <!ATTLIST tally name CDATA #REQUIRED>\n]>\n<tally name=\"fruit\">\n  <count>3</count>\n</tally>\n")
C_WITH_ARROWS = ("/* walk the graph */\nstruct node { struct node *next; int label; };\n\n"
                 "int length(const struct node *n)\n{\n    int k = 0;\n    for (; n; n = n->next)\n        k += n->label;\n"
                 "    return k;\n}\n")


MAILED_PATCH = ("From 3f2a0c1e Mon Sep 17 00:00:00 2001\nFrom: Ada Byron <ada@example.org>\n"
                "Date: Mon, 7 Dec 2026 10:00:00 +0000\nSubject: [PATCH] count empty lines\n\n---\n"
                " tally.py | 2 +-\n\ndiff --git a/tally.py b/tally.py\n--- a/tally.py\n+++ b/tally.py\n"
                "@@ -1 +1 @@\n-lines = [l for l in text.splitlines() if l]\n+lines = text.splitlines()\n")
HEADERS_ONLY = "From: Ada Byron <ada@example.org>\nTo: tally-devel@example.org\nSubject: counts\n"
ZONE_IN_PROSE = ("To delegate the zone, add these records to the parent:\n\n    sub IN NS ns1.sub.example.org.\n"
                 "    ns1.sub IN A 192.0.2.7\n    @ IN SOA ns1 hostmaster 1 7200 3600 1209600 3600\n\nThen reload it.\n")


@pytest.mark.parametrize("text", [TOML_DOTTED, LEXER_TABLE, PYTHON_WITH_EXAMPLES, XML_WITH_SUBSET, C_WITH_ARROWS,
                                  ZONE_IN_PROSE, MAILED_PATCH, HEADERS_ONLY])
def test_formats_no_model_names_need_their_own_forms_not_their_words(text):
    assert dialects.from_conventions(text) is None and dialects.by_signature(text) is None


def _signatures():
    yield from dialects._SIGNATURES.items()
    for table in dialects.DIALECTS.values():
        yield from table.items()


def test_every_match_of_a_form_holds_one_of_its_literals():
    # a form is looked for only where one of its literals occurs: a literal its matches can lack
    # would hide the form. Read on every text here (each form's own) and on the standard library.
    import glob
    import os
    library = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py")))[:60]
    texts = [value for value in globals().values() if isinstance(value, str) and "\n" in value]
    texts += [open(path, encoding="utf-8", errors="replace").read() for path in library]
    matched = set()
    for name, signature in _signatures():
        if not isinstance(signature, dialects.Signature):
            continue
        for kind, form in signature.forms.items():
            for text in texts:
                for match in form.pattern.finditer(text):
                    assert any(literal in match.group() for literal in form.literals), (name, kind, match.group())
                    matched.add((name, kind))
    assert len(matched) >= 60   # most forms occur in the texts above, so the check reads them


def test_a_word_form_starts_at_a_word():
    # `word` opens the pattern with its literal (fast to scan) and keeps `\b`'s meaning
    linkage = dialects._D_FORMS["linkage"].pattern
    assert linkage.search('extern(C) void f();') and linkage.search('x = 1;\n  extern (C++) int g;')
    assert not linkage.search('myextern(C) void f();')


TSX = ("import React, { useState } from \"react\";\n\ntype Props = { labels: string[] };\n\n"
       "export function Tally({ labels }: Props) {\n  const [total, setTotal] = useState<number>(0);\n  return (\n"
       "    <>\n      <button className=\"count\" onClick={() => setTotal(total + 1)}>Count</button>\n"
       "      <Total value={total} />\n    </>\n  );\n}\n")
ANGULAR = ("import { Component } from '@angular/core';\n\n@Component({\n  selector: 'app-tally',\n"
           "  template: `<button class=\"count\" (click)=\"add()\">Count</button> <span>{{ total }}</span>`,\n})\n"
           "export class TallyComponent {\n  total: number = 0;\n  add(): void {\n    this.total += 1;\n  }\n}\n")
GENERICS = ("function first<T>(items: Array<T>): T | undefined {\n"
            "  return items.length > 0 ? items[0] : undefined;\n}\n\n"
            "const counts: Map<string, number> = new Map();\nconst ok = (a: number, b: number) => a < b && b > 0;\n")


def test_react_markup_in_typescript_is_tsx_and_typescript_alone_is_not():
    assert dialects.dialect_of("TypeScript", TSX, sure=True) == "TSX"
    assert dialects.dialect_of("TypeScript", ANGULAR, sure=True) is None
    assert dialects.dialect_of("TypeScript", GENERICS, sure=True) is None


MOJO = ("from python import Python\n\n@value\nstruct Tally:\n    var total: Int\n\n"
        "    fn add(inout self, step: Int) -> Int:\n        self.total += step\n        return self.total\n\n"
        "alias START = 0\n\nfn main() raises:\n    var tally = Tally(START)\n    print(tally.add(1))\n")
PYTHON_TYPED = ("from dataclasses import dataclass\n\n@dataclass\nclass Tally:\n    total: int = 0\n\n"
                "    @staticmethod\n    def fn(step: int) -> int:\n        return step\n\n"
                "var = Tally()\nlet = var.fn(1)\n")


def test_mojo_within_python_by_its_functions_structs_and_bindings():
    assert dialects.dialect_of("Python", MOJO, sure=True) == "Mojo"
    assert dialects.dialect_of("Python", PYTHON_TYPED, sure=True) is None



README_WITH_CUDA = ("# Tally kernels\n\nTally counts labels on the GPU. Build it with `make`, then run:\n\n```cuda\n"
                    "__global__ void tally(int *counts, const int *labels, int n)\n{\n"
                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) atomicAdd(&counts[labels[i]], 1);\n"
                    "}\n\ntally<<<blocks, threads>>>(counts, labels, n);\n```\n\nThe counts are then copied back.\n")
README_WITH_VIM = ("# Vim setup\n\nAdd this to your vimrc::\n\n    set number\n    syntax on\n"
                   "    let g:tally_enabled = 1\n    autocmd BufRead *.tally setlocal filetype=tally\n"
                   "    hi TallyCount ctermfg=green\n\nThat is all.\n")


def test_a_documents_fenced_or_literal_examples_do_not_name_it():
    assert dialects.by_signature(README_WITH_CUDA) is None
    assert dialects.by_signature(README_WITH_VIM) is None
    assert dialects.by_signature(README_WITH_CUDA.split("```cuda\n")[1].split("```")[0]) == "CUDA"
