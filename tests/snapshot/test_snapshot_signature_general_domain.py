"""The general-purpose and the one-toolchain languages' tables (quarry.snapshot.signatures_general,
signatures_domain): every text here is written for these tests from the language's documentation,
and each near language's file that writes a few of the same words stays what it is."""

import pytest
from signature_checks import forms_hold_their_literals

from quarry.snapshot import language, signatures, signatures_domain, signatures_general

APL = ("⍝ the words counted by label\n:Namespace Tally\n    ⎕IO←0\n    Count←{⍵[⍋⍵]}\n"
       "    Total←{+/⍴¨⍵}\n    ∇ r←Labels words\n      r←∪words\n    ∇\n    ⎕←Total 'fruit' 'pear'\n"
       "    :If 0<⍴⍳10\n        ⎕←⌽⍳5\n    :EndIf\n:EndNamespace\n")
ASPECTJ = ("package tally;\n\nimport org.aspectj.lang.JoinPoint;\n\npublic aspect Counting {\n"
           "    private int total = 0;\n\n    pointcut counted(): execution(* tally.Words.add(..));\n\n"
           "    before(): counted() {\n        total++;\n        System.out.println(thisJoinPoint.getSignature());\n"
           "    }\n\n    Object around(): call(* tally..*(..)) {\n        return proceed();\n    }\n\n"
           "    after() returning: counted() {\n        System.out.println(total);\n    }\n\n"
           "    declare parents: tally.Words implements java.io.Serializable;\n}\n")
BOOGIE = ("var total: int;\nconst unique Fruit: int;\n\naxiom (forall x: int :: x >= 0 ==> x + 1 > 0);\n\n"
          "procedure Add(step: int) returns (r: int);\n  requires step > 0;\n  modifies total;\n"
          "  ensures total == old(total) + step;\n\n"
          "implementation Add(step: int) returns (r: int)\n{\n  total := total + step;\n  r := total;\n}\n\n"
          "procedure Main()\n  modifies total;\n{\n  var x: int;\n  havoc x;\n  assume x > 0;\n"
          "  call x := Add(x);\n  goto Done, Again;\n  Again:\n    assert total >= 0;\n  Done:\n}\n")
CEYLON = ("import ceylon.collection { HashMap }\n\n\"Counts words by label.\"\nby (\"Ada\")\n"
          "shared class Tally() satisfies Iterable<Integer> {\n    value counts = HashMap<String, Integer>();\n"
          "    shared void add(String label) {\n        value total = counts[label] else 0;\n"
          "        counts[label] = total + 1;\n    }\n"
          "    shared actual Iterator<Integer> iterator() => counts.items.iterator();\n}\n\n"
          "shared void run() {\n    {String*} labels = {\"fruit\", \"pear\"};\n    value tally = Tally();\n"
          "    for (label in labels) {\n        tally.add(label);\n    }\n"
          "    switch (label = labels.first)\n    case (is String) { print(label); }\n    else {}\n}\n")
CLEAN = ("implementation module tally\n\nimport StdEnv\nfrom StdList import sortBy\n\n"
         ":: Count = { label :: String, total :: Int }\n:: Labels :== [String]\n\n"
         "count :: String Labels -> Int\ncount label labels = length (filter ((==) label) labels)\n\n"
         "Start :: *World -> *World\nStart world\n    # (console, world) = stdio world\n"
         "    # console = fwrites (toString (count \"fruit\" [\"fruit\", \"pear\"])) console\n"
         "    = snd (fclose console world)\n")
CODEQL = ("/**\n * @name Unused label\n * @description A label counted but never read.\n * @kind problem\n"
          " * @problem.severity warning\n * @id java/unused-label\n */\n\nimport java\n"
          "import semmle.code.java.dataflow.DataFlow\n\npredicate isCounted(Field f) {\n"
          "  exists(MethodCall call | call.getMethod().getName() = \"add\"\n"
          "    and call.getAnArgument() = f.getAnAccess())\n"
          "}\n\nfrom Field f\nwhere isCounted(f) and not exists(FieldRead r | r.getField() = f)\n"
          "select f, \"This label is counted but never read.\"\n")
FANTOM = ("using sys\nusing concurrent::Actor\n\n** Counts words by label\nclass Tally\n{\n"
          "  new make(Str:Int counts := [:]) { this.counts = counts }\n\n  Str:Int counts\n\n"
          "  Void add(Str label)\n  {\n    counts[label] = counts.get(label, 0) + 1\n  }\n\n"
          "  Int total()\n  {\n    return counts.vals.reduce(0) |Int r, Int v -> Int| { r + v }\n  }\n\n"
          "  static Void main()\n  {\n    t := Tally()\n    t.add(\"fruit\")\n    echo(t.total.toStr)\n"
          "    echo(Env.cur.args)\n  }\n}\n")
FSTAR = ("module Tally\n\nopen FStar.Mul\nopen FStar.List.Tot\n\nlet rec total (xs: list nat) : Tot nat =\n"
         "  match xs with\n  | [] -> 0\n  | x :: rest -> x + total rest\n\n"
         "val total_positive : xs:list nat{length xs > 0} -> Lemma (total xs >= 0)\n"
         "let total_positive xs = ()\n\ninline_for_extraction noextract\n"
         "let add (x: nat) (y: nat) : Pure nat (requires (x + y < 100)) (ensures (fun r -> r = x + y)) = x + y\n")
FUTHARK = ("-- The words counted by label.\n-- ==\n-- input { [1, 2, 3] }\n-- output { 6 }\n\n"
           "def total [n] (counts: [n]i32): i32 =\n  reduce (+) 0 counts\n\n"
           "def means (xs: [][]f32): []f32 =\n  map (\\row -> f32.sum row / f32.i64 (length row)) xs\n\n"
           "entry main (counts: []i32): i32 =\n  let steps = loop acc = 0 for i < 10 do acc + i\n"
           "  in total counts + steps\n")
GOLO = ("module tally.Counter\n\nimport java.util\n\nfunction count = |words| {\n  let counts = map[]\n"
        "  foreach word in words {\n    counts: put(word, counts: getOrElse(word, 0) + 1)\n  }\n  return counts\n}\n\n"
        "augment java.lang.String {\n  function shout = |this| -> this: toUpperCase()\n}\n\n"
        "function main = |args| {\n  let total = count(list[\"fruit\", \"pear\"])\n"
        "  let show = |k, v| -> println(k + \": \" + v)\n  println(total)\n}\n")
KOKA = ("module tally\n\nimport std/num/int32\n\neffect counter\n  ctl tick() : int\n\n"
        "fun count-words(words : list<string>) : counter int\n  words.foldl(0, fn(acc, _) acc + tick())\n\n"
        "fun main() : console ()\n  with ctl tick()\n    resume(1)\n  println(count-words([\"fruit\", \"pear\"]))\n\n"
        "fun total(xs : list<int>) : <div,exn> int\n  with handler\n    final ctl fail() 0\n  xs.sum\n")
LASSO = ("<?lasso\n// the words counted by label\nlocal(counts = map)\nvar(total = 0)\n\n"
         "define tally(label::string) => {\n    #counts->insert(#label = #counts->find(#label) + 1)\n"
         "    $total += 1\n    return #counts->size\n}\n\ndefine counter => type {\n    data public total = 0\n}\n\n"
         "tally('fruit')\n#counts->keys->join(', ')\n?>\n")
LIMBO = ("implement Tally;\n\ninclude \"sys.m\";\n\tsys: Sys;\ninclude \"draw.m\";\n\n"
         "Tally: module {\n\tinit: fn(ctxt: ref Draw->Context, argv: list of string);\n};\n\n"
         "Count: adt {\n\tlabel: string;\n\ttotal: int;\n};\n\nMAX: con 100;\n\n"
         "init(nil: ref Draw->Context, argv: list of string)\n{\n\tsys = load Sys Sys->PATH;\n"
         "\tfor (; argv != nil; argv = tl argv)\n\t\tsys->print(\"%s\\n\", hd argv);\n}\n")
LITERATE_HASKELL_BIRD = ("This module counts words by label.\n\n> module Tally where\n\n"
                         "> import qualified Data.Map as Map\n\nA count is a label and its total.\n\n"
                         "> data Count = Count String Int\n\n> tally :: [String] -> Map.Map String Int\n"
                         "> tally = Map.fromListWith (+) . map (\\w -> (w, 1))\n")
LITERATE_HASKELL_LATEX = ("\\documentclass{article}\n\\begin{document}\nThe words counted by label.\n\n"
                          "\\begin{code}\nmodule Tally where\n\nimport Data.List (sort)\n\\end{code}\n\n"
                          "A total over the counts:\n\n\\begin{code}\ntotal :: [Int] -> Int\ntotal = sum\n"
                          "\\end{code}\n\\end{document}\n")
NEMERLE = ("using System;\nusing Nemerle.Collections;\nusing Nemerle.Utility;\n\nmodule Tally\n{\n"
           "  Count(words : list[string]) : int\n  {\n    mutable total = 0;\n"
           "    foreach (w in words) total += 1;\n    total\n  }\n\n  Main() : void\n  {\n"
           "    def words = [\"fruit\", \"pear\"];\n    def total = Count(words);\n"
           "    Console.WriteLine($\"$total words\");\n    match (total) {\n      | 0 => ()\n"
           "      | _ => Console.WriteLine(\"counted\")\n    }\n  }\n}\n")
REASON = ("open Belt;\n\ntype count = {\n  label: string,\n  total: int,\n};\n\ntype tally('a) = list('a);\n\n"
          "module Counter = {\n  let add = (counts, label) =>\n    switch (Map.String.get(counts, label)) {\n"
          "    | Some(total) => Map.String.set(counts, label, total + 1)\n"
          "    | None => Map.String.set(counts, label, 1)\n    };\n};\n\n[@react.component]\n"
          "let make = (~total) => <div> {React.string(string_of_int(total))} </div>;\n\n"
          "Js.log(\"counted\");\n")
XTEND = ("package tally\n\nimport static extension tally.Strings.*\n\nclass Counter {\n"
         "    val counts = newHashMap\n    var int total = 0\n    val String title = 'Tally'\n\n"
         "    def void add(String label) {\n        counts.put(label, (counts.get(label) ?: 0) + 1)\n"
         "        total = total + 1\n    }\n\n    override toString() {\n        '''\n"
         "        «title»: «total» words\n        «FOR label : counts.keySet»\n        - «label»\n"
         "        «ENDFOR»\n        '''\n    }\n\n    def static main(String[] args) {\n"
         "        val labels = newArrayList('fruit', 'pear')\n        println(labels)\n    }\n}\n")
WEB_IDL = ("// the tally of words by label\n[Exposed=Window, SecureContext]\ninterface Tally : EventTarget {\n"
           "  constructor(optional TallyInit init = {});\n  readonly attribute unsigned long long total;\n"
           "  attribute DOMString title;\n  attribute EventHandler oncount;\n"
           "  undefined add(DOMString label, optional long step = 1);\n"
           "  Promise<sequence<USVString>> labels();\n};\n\ndictionary TallyInit {\n  DOMString title = \"\";\n"
           "  record<DOMString, unrestricted double> weights;\n};\n\ninterface mixin Counted {\n"
           "  readonly attribute long count;\n};\n\nTally includes Counted;\n\n"
           "partial interface Window {\n  [SameObject] readonly attribute Tally tally;\n};\n\n"
           "callback TallyCallback = undefined (DOMString label);\n")
ABNF = ("; the tally's request line, in ABNF (RFC 5234)\n"
        "request     = method SP label *( \",\" label ) CRLF\n"
        "method      = %x43.4F.55.4E.54 / %x53.55.4D   ; \"COUNT\" / \"SUM\"\n"
        "label       = 1*32( ALPHA / DIGIT / \"-\" )\n"
        "total       = 1*DIGIT\n"
        "label       =/ DQUOTE *VCHAR DQUOTE\n"
        "step        = %d48-57\n")
TABLEGEN = ("include \"llvm/Target/Target.td\"\n\nclass TallyInst<bits<8> op, string asm, dag outs, dag ins>\n"
            "    : Instruction {\n  let OutOperandList = outs;\n  let InOperandList = ins;\n"
            "  let AsmString = !strconcat(asm, \" $dst, $src\");\n  bits<8> Opcode = op;\n}\n\n"
            "def ADDW : TallyInst<0x01, \"addw\", (outs GPR:$dst), (ins GPR:$src)>;\n\n"
            "multiclass Counted<bits<8> op, string asm> {\n"
            "  def r : TallyInst<op, asm, (outs GPR:$dst), (ins GPR:$src)>;\n"
            "  def i : TallyInst<op, asm, (outs GPR:$dst), (ins i32imm:$src)>;\n}\n\n"
            "defm CNT : Counted<0x02, \"cnt\">;\n\nlet isCommutable = 1 in {\n"
            "  def SUMW : TallyInst<0x03, \"sumw\", (outs GPR:$dst), (ins GPR:$src)>;\n}\n")
SOONG = ("// the tally of words by label\npackage {\n    default_applicable_licenses: [\"tally_license\"],\n}\n\n"
         "cc_library_shared {\n    name: \"libtally\",\n    srcs: [\n        \"tally.cpp\",\n        \"count.cpp\",\n"
         "    ],\n    shared_libs: [\n        \"liblog\",\n        \"libutils\",\n    ],\n"
         "    cflags: [\"-Wall\", \"-Werror\"],\n    export_include_dirs: [\"include\"],\n"
         "    vendor_available: true,\n}\n\n"
         "cc_test {\n    name: \"tally_test\",\n    srcs: [\"tally_test.cpp\"],\n    static_libs: [\"libgmock\"],\n}\n")
HXML = ("# the tally's build\n-cp src\n-lib hxnodejs\n-D analyzer-optimize\n-main tally.Main\n-js bin/tally.js\n"
        "-dce full\n--next\n-cp src\n-main tally.Main\n--interp\n")
BST = ("% the tally bibliography style\nENTRY\n  { author title year }\n  {}\n  { label }\n\n"
       "INTEGERS { total }\nSTRINGS { s }\n\nFUNCTION {output.entry}\n{ newline$\n"
       "  \"\\bibitem{\" write$\n  cite$ write$\n  \"}\" write$\n}\n\nFUNCTION {article}\n{ output.entry\n"
       "  author empty$\n    { \"\" }\n    { author format.name$ }\n  if$\n  write$\n}\n\nREAD\n\n"
       "ITERATE {call.type$}\n\nEXECUTE {output.entry}\n")
WOW_TOC = ("## Interface: 100200\n## Title: Tally\n## Notes: Counts the words said in chat\n## Author: Ada\n"
           "## Version: 1.2.0\n## SavedVariables: TallyDB\n## OptionalDeps: Ace3\n\nLibs\\LibStub\\LibStub.lua\n"
           "Locales\\enUS.lua\nTally.lua\nTally.xml\n")
GCODE = ("; the tally plate, sliced\nG21 ; millimetres\nG90 ; absolute positions\nM104 S200\nM140 S60\n"
         "G28 ; home\nT0\nG1 Z0.3 F3000\nG1 X10 Y10 E0.5 F1500\nG1 X50 Y10 E2.1\n"
         "G2 X60 Y20 I0 J10 F1200\nG0 X0 Y0\nM107\nM84\n")
CSOUND_SCORE = ("; the tally's score\nf1 0 16384 10 1\nf2 0 1024 7 0 512 1 512 0\nt 0 90\n\n"
                "; instr start dur amp freq\ni1 0 1 0.5 440\ni1 1 1 0.5 660\ni2 2 2 0.3 220\ns\ni1 0 2 0.4 330\ne\n")
GENSHI = ("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"\n"
          "      xmlns:py=\"http://genshi.edgewall.org/\"\n      xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
          "  <xi:include href=\"layout.html\" />\n  <head><title>${title}</title></head>\n  <body>\n"
          "    <ul py:if=\"counts\">\n      <li py:for=\"label, total in counts.items()\">${label}: ${total}</li>\n"
          "    </ul>\n    <p py:otherwise=\"\">No counts yet.</p>\n  </body>\n</html>\n")
COLDFUSION_CFC = ("<cfcomponent displayname=\"Tally\" output=\"false\">\n"
                  "  <cfproperty name=\"total\" type=\"numeric\">\n\n"
                  "  <cffunction name=\"add\" access=\"public\" returntype=\"numeric\">\n"
                  "    <cfargument name=\"label\" type=\"string\" required=\"true\">\n"
                  "    <cfset variables.total = variables.total + 1>\n    <cfreturn variables.total>\n"
                  "  </cffunction>\n</cfcomponent>\n")
COLDFUSION_SCRIPT_CFC = ("component accessors=\"true\" {\n    property name=\"total\" type=\"numeric\";\n\n"
                         "    public numeric function add(required string label) {\n"
                         "        variables.total++;\n        return variables.total;\n    }\n}\n")
COLDFUSION_HTML = ("<cfparam name=\"url.label\" default=\"fruit\">\n<cfquery name=\"counts\" datasource=\"tally\">\n"
                   "  SELECT label, total FROM counts\n</cfquery>\n<cfset grand = 0>\n<html>\n<body>\n"
                   "<cfoutput query=\"counts\">\n  <p>#label#: #total#</p>\n  <cfset grand = grand + total>\n"
                   "</cfoutput>\n<cfif grand GT 0>\n  <cfoutput><p>#NumberFormat(grand)# words</p></cfoutput>\n"
                   "<cfelse>\n  <p>No counts yet.</p>\n</cfif>\n</body>\n</html>\n")
PYTHON_TRACEBACK = ("Traceback (most recent call last):\n  File \"/srv/tally/count.py\", line 12, in <module>\n"
                    "    main()\n  File \"/srv/tally/count.py\", line 8, in main\n    total = add(counts, label)\n"
                    "  File \"/srv/tally/count.py\", line 4, in add\n    return counts[label] + 1\n"
                    "KeyError: 'fruit'\n")
MQL = ("//+------------------------------------------------------------------+\n"
       "#property copyright \"Tally\"\n#property version   \"1.00\"\n#property strict\n\n"
       "input int    Period = 14;\ninput double Lots   = 0.1;\n\nint handle;\n\nint OnInit()\n{\n"
       "   handle = iMA(_Symbol, PERIOD_CURRENT, Period, 0, MODE_SMA, PRICE_CLOSE);\n   return(INIT_SUCCEEDED);\n}\n\n"
       "void OnTick()\n{\n   double price = NormalizeDouble(SymbolInfoDouble(_Symbol, SYMBOL_ASK), _Digits);\n"
       "   if(PositionsTotal() == 0)\n      Print(\"no position at \", price);\n}\n")
IGOR = ("#pragma TextEncoding = \"UTF-8\"\n#pragma rtGlobals=3\t\t// Use modern global access method\n"
        "#pragma IgorVersion = 8.00\n#include <Graph Utility Procs>\n\n"
        "Function Tally(String label)\n\tNVAR total = root:gTotal\n\tVariable step = 1\n"
        "\tWave/T labels = root:labels\n\ttotal += step\n\tMake/O/N=(10) counts = 0\n\tDisplay counts\n"
        "\treturn total\nEnd\n\nFunction/S LastLabel()\n\tWave/T labels = root:labels\n"
        "\treturn labels[numpnts(labels) - 1]\nEnd\n")
IDL = ("; the words counted by label\nfunction tally, words, labels=labels\n  compile_opt idl2\n"
       "  counts = lonarr(n_elements(labels))\n  for i = 0, n_elements(words) - 1 do begin\n"
       "    idx = where(labels eq words[i], n)\n    if n gt 0 then begin\n      counts[idx] += 1\n"
       "    endif else begin\n      print, 'unknown label: ', words[i]\n    endelse\n  endfor\n"
       "  return, counts\nend\n\npro show_tally, words\n  counts = tally(words, labels=['fruit', 'pear'])\n"
       "  plot, counts, /ylog, title='Tally'\n  help, counts\nend\n")
REDCODE = (";redcode-94\n;name Tally\n;author Ada\n;strategy counts every tenth cell\n;assert CORESIZE == 8000\n\n"
           "step    equ 10\nstart   add.ab  #step, ptr\n        mov.i   bomb, @ptr\n        djn.b   start, #800\n"
           "        spl     0\nptr     dat     #0, #0\nbomb    dat     #0, #0\n        end start\n")
BLITZMAX = ("SuperStrict\n\nFramework brl.standardio\nImport brl.map\n\n' the words counted by label\n"
            "Type TTally\n\tField counts:TMap = New TMap\n\tField total:Int\n\n\tMethod Add(label:String)\n"
            "\t\ttotal :+ 1\n\t\tcounts.Insert(label, String(total))\n\tEnd Method\nEnd Type\n\n"
            "Local tally:TTally = New TTally\ntally.Add(\"fruit\")\nPrint tally.total\n")
INFORM7 = ("\"Tally\" by Ada Lovelace\n\nInclude Basic Screen Effects by Emily Short.\n\n"
           "Volume 1 - The House\n\nThe Counting Room is a room. \"Tallies line the walls.\"\n\n"
           "A tally is a kind of thing. A tally has a number called the total.\n\n"
           "The slate is a tally in the Counting Room.\n\nUnderstand \"mark\" or \"tick\" as marking.\n"
           "Marking is an action applying to one thing.\n\nCarry out marking a tally:\n"
           "\tincrease the total of the noun by 1;\n\tsay \"The slate now shows [total of the noun] marks.\"\n\n"
           "Instead of taking the slate:\n\tsay \"It is fixed to the wall.\"\n\nEvery turn:\n"
           "\tif the total of the slate is 10, end the story.\n")
MONKEY = ("Strict\n\nImport mojo\n\n' the words counted by label\nClass Tally Extends App\n\tField total:Int\n\n"
          "\tMethod OnCreate:Int()\n\t\tSetUpdateRate 60\n\t\tReturn 0\n\tEnd\n\n\tMethod OnRender:Int()\n"
          "\t\tCls\n\t\tDrawText \"Total: \" + total, 10, 10\n\t\tReturn 0\n\tEnd\nEnd\n\n"
          "#If TARGET=\"html5\"\n' the browser build\n#End\n\nFunction Main:Int()\n\tNew Tally\n\tReturn 0\nEnd\n")
OOC = ("import structs/[ArrayList, HashMap]\nuse sdk\n\nTally: class {\n    counts := HashMap<String, Int> new()\n"
       "    total: Int = 0\n\n    init: func\n\n    add: func (label: String) {\n        total += 1\n"
       "        counts put(label, total)\n    }\n}\n\nLabel: cover from Int\n\nmain: func {\n"
       "    tally := Tally new()\n    tally add(\"fruit\")\n    tally total toString() println()\n}\n")
EC = ("import \"ecere\"\n\nclass Tally : Window\n{\n   caption = \"Tally\";\n   size = { 320, 200 };\n"
      "   int total;\n\n   property int count\n   {\n      set { total = value; firewatchers; }\n"
      "      get { return total; }\n   }\n\n   Button add\n   {\n"
      "      this, caption = \"Count\", position = { 10, 10 };\n"
      "      bool NotifyClicked(Button button, int x, int y, Modifiers mods)\n      {\n         count = total + 1;\n"
      "         return true;\n      }\n   };\n}\n\nTally tally {};\n")
OBJDUMP = ("\ntally:     file format elf64-x86-64\n\n\nDisassembly of section .text:\n\n"
           "0000000000001139 <add>:\n    1139:\t55                   \tpush   %rbp\n"
           "    113a:\t48 89 e5             \tmov    %rsp,%rbp\n"
           "    113d:\t89 7d fc             \tmov    %edi,-0x4(%rbp)\n"
           "    1140:\t8b 45 fc             \tmov    -0x4(%rbp),%eax\n"
           "    1143:\t83 c0 01             \tadd    $0x1,%eax\n"
           "    1146:\t5d                   \tpop    %rbp\n    1147:\tc3                   \tret    \n")
C_OBJDUMP = ("\ntally.o:     file format elf64-x86-64\n\n\nDisassembly of section .text:\n\n"
             "0000000000000000 <add>:\nint add(int total)\n{\n   0:\t55                   \tpush   %rbp\n"
             "   1:\t48 89 e5             \tmov    %rsp,%rbp\n   4:\t89 7d fc             \tmov    %edi,-0x4(%rbp)\n"
             "    return total + 1;\n   7:\t8b 45 fc             \tmov    -0x4(%rbp),%eax\n"
             "   a:\t83 c0 01             \tadd    $0x1,%eax\n}\n   d:\t5d                   \tpop    %rbp\n"
             "   e:\tc3                   \tret    \n")
CPP_OBJDUMP = ("\ntally.o:     file format elf64-x86-64\n\n\nDisassembly of section .text:\n\n"
               "0000000000000000 <tally::Counter::add(std::string const&)>:\n"
               "int tally::Counter::add(const std::string& label)\n{\n"
               "   0:\t55                   \tpush   %rbp\n   1:\t48 89 e5             \tmov    %rsp,%rbp\n"
               "    return ++counts[label];\n"
               "   4:\te8 00 00 00 00       \tcall   9 <tally::Counter::add(std::string const&)+0x9>\n"
               "}\n   9:\t5d                   \tpop    %rbp\n   a:\tc3                   \tret    \n")
IRC_LOG = ("--- Log opened Mon Jan 05 10:00:00 2026\n10:00 -!- ada [~ada@example.org] has joined #tally\n"
           "10:01 <ada> has anyone counted the fruit today?\n10:01 <@bob> three so far\n10:02  * ada adds a pear\n"
           "10:03 <@bob> four, then\n10:05 -!- bob [~bob@example.org] has quit [Quit: lunch]\n"
           "--- Log closed Mon Jan 05 11:00:00 2026\n")
IRC_WEECHAT = ("2026-01-05 10:00:00\t-->\tada (~ada@example.org) has joined #tally\n"
               "2026-01-05 10:01:12\tada\thas anyone counted the fruit today?\n"
               "2026-01-05 10:01:40\t@bob\tthree so far\n2026-01-05 10:02:03\t *\tada adds a pear\n"
               "2026-01-05 10:05:00\t<--\tbob (~bob@example.org) has quit (Quit: lunch)\n")
SRCINFO = ("pkgbase = tally\n\tpkgdesc = Count words by label\n\tpkgver = 1.2.0\n\tpkgrel = 1\n"
           "\turl = https://example.org/tally\n\tarch = x86_64\n\tlicense = MIT\n\tmakedepends = cargo\n"
           "\tdepends = glibc\n\tsource = tally-1.2.0.tar.gz::https://example.org/tally-1.2.0.tar.gz\n"
           "\tsha256sums = 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n\npkgname = tally\n")
PAN = ("object template tally.example.org;\n\ninclude 'machine-types/core';\n\n"
       "variable TALLY_LABELS ?= list('fruit', 'pear');\n\n"
       "type tally_count = {\n    'label' : string\n    'total' : long(0..)\n};\n\n"
       "function tally_total = {\n    sum = 0;\n    foreach (i; v; ARGV[0]) { sum = sum + v; };\n    sum;\n};\n\n"
       "prefix '/software/components/tally';\n'active' = true;\n\"/system/tally/labels\" = TALLY_LABELS;\n"
       "bind '/system/tally/counts' = tally_count[];\n")
IOKE = (";; the words counted by label\nuse(\"tally/labels\")\n\nTally = Origin mimic do(\n"
        "  initialize = method(\n    @counts = dict()\n    @total = 0)\n\n"
        "  add = method(label,\n    @counts[label] = (@counts[label] || 0) + 1\n    @total++)\n\n"
        "  cell(:\"+\") = method(other, add(other))\n\n  each = dmacro([code] @counts each(code))\n)\n\n"
        "tally = Tally mimic\ntally add(\"fruit\")\ntally total println\n")
ABL = ("/* the words counted by label */\n&SCOPED-DEFINE MaxLabels 10\n\nDEFINE VARIABLE iTotal AS INTEGER NO-UNDO.\n"
       "DEFINE TEMP-TABLE ttCount NO-UNDO\n  FIELD cLabel AS CHARACTER\n  FIELD iCount AS INTEGER.\n\n"
       "PROCEDURE addLabel:\n  DEFINE INPUT PARAMETER pcLabel AS CHARACTER NO-UNDO.\n"
       "  FIND FIRST ttCount WHERE ttCount.cLabel = pcLabel NO-ERROR.\n  IF NOT AVAILABLE ttCount THEN DO:\n"
       "    CREATE ttCount.\n    ASSIGN ttCount.cLabel = pcLabel.\n  END.\n  ttCount.iCount = ttCount.iCount + 1.\n"
       "END PROCEDURE.\n\nFOR EACH ttCount NO-LOCK:\n  iTotal = iTotal + ttCount.iCount.\nEND.\n"
       "DISPLAY iTotal {&MaxLabels}.\n")
BASH_SESSION = ("$ tally --labels fruit,pear counts.txt\nfruit 3\npear 1\n$ echo $?\n0\n"
                "ada@desk:~/tally$ ls\ncounts.txt  tally.py\n")
PYTHON_CONSOLE = (">>> from tally import count\n>>> count(['fruit', 'pear', 'fruit'])\n{'fruit': 2, 'pear': 1}\n"
                  ">>> for label in ['fruit', 'pear']:\n...     print(label)\n...\nfruit\npear\n")
BLITZBASIC = ("; the words counted by label\nGraphics 640, 480, 0, 2\nSetBuffer BackBuffer()\n\nType Count\n"
              "\tField label$\n\tField total%\nEnd Type\n\nGlobal grand% = 0\n\nFunction AddLabel.Count(label$)\n"
              "\tc.Count = New Count\n\tc\\label = label\n\tReturn c\nEnd Function\n\n"
              "Function Reset(c.Count)\n\tc\\total = 0\nEnd Function\n\nWhile Not KeyHit(1)\n\tCls\n"
              "\tFor c.Count = Each Count\n\t\tgrand = grand + c\\total\n\tNext\n\tFlip\nWend\nEnd\n")
MOOCODE = ("@program #123:tally\n\"Count the words said, by label.\";\nlabel = args[1];\n"
           "counts = this.counts;\nif (label in $list_utils:slice(counts))\n  player:tell(\"Counted \", label);\n"
           "else\n  this.counts = {@counts, {label, 1}};\nendif\nfor c in (counts)\n"
           "  player:tell(c[1], \": \", c[2]);\n"
           "endfor\nreturn length(counts);\n.\n")
MUPAD = ("// the words counted by label\ntally := proc(words)\n  local counts, w;\n  option remember;\nbegin\n"
         "  counts := table();\n  for w in words do\n    if contains(counts, w) then\n"
         "      counts[w] := counts[w] + 1\n    else\n      counts[w] := 1\n    end_if\n  end_for;\n"
         "  counts\nend_proc:\n")
SARL = ("package io.tally\n\nimport io.sarl.core.Initialize\nimport io.sarl.core.Logging\n\n"
        "event Counted {\n\tval label : String\n}\n\nagent Tally {\n\tuses Logging, DefaultContextInteractions\n\n"
        "\tvar total = 0\n\n\ton Initialize {\n\t\tinfo(\"The tally starts.\")\n\t}\n\n"
        "\ton Counted [occurrence.label == \"fruit\"] {\n\t\ttotal = total + 1\n"
        "\t\temit(new Counted(\"pear\"))\n\t}\n}\n")
MYGHTY = ("<%args>\n    labels\n</%args>\n<%python scope=\"init\">\n    total = len(labels)\n</%python>\n"
          "<h1>Tally</h1>\n<ul>\n% for label in labels:\n    <li><% label %></li>\n% endfor\n</ul>\n"
          "<& footer.myt, total=total &>\n% m.write(\"done\")\n")

POSITIVES = [
    (APL, "APL"), (ASPECTJ, "AspectJ"), (BOOGIE, "Boogie"), (CEYLON, "Ceylon"), (CLEAN, "Clean"),
    (CODEQL, "CodeQL"), (FANTOM, "Fantom"), (FSTAR, "FStar"), (FUTHARK, "Futhark"), (GOLO, "Golo"),
    (KOKA, "Koka"), (LASSO, "Lasso"), (LIMBO, "Limbo"), (LITERATE_HASKELL_BIRD, "Literate Haskell"),
    (LITERATE_HASKELL_LATEX, "Literate Haskell"), (NEMERLE, "Nemerle"), (REASON, "ReasonML"), (XTEND, "Xtend"),
    (WEB_IDL, "Web IDL"), (ABNF, "ABNF"), (TABLEGEN, "TableGen"), (SOONG, "Soong"), (HXML, "Hxml"),
    (BST, "BST"), (WOW_TOC, "World of Warcraft TOC"), (GCODE, "g-code"), (CSOUND_SCORE, "Csound Score"),
    (GENSHI, "Genshi"), (COLDFUSION_CFC, "Coldfusion CFC"), (COLDFUSION_SCRIPT_CFC, "Coldfusion CFC"),
    (COLDFUSION_HTML, "Coldfusion HTML"), (PYTHON_TRACEBACK, "Python Traceback"), (MQL, "MQL"), (IGOR, "Igor"),
    (IDL, "IDL"), (REDCODE, "Redcode"), (BLITZMAX, "BlitzMax"), (INFORM7, "Inform 7"), (MONKEY, "Monkey"),
    (OOC, "Ooc"), (EC, "eC"), (OBJDUMP, "objdump"), (C_OBJDUMP, "c-objdump"), (CPP_OBJDUMP, "cpp-objdump"),
    (IRC_LOG, "IRC logs"), (IRC_WEECHAT, "IRC logs"), (SRCINFO, "Srcinfo"), (PAN, "Pan"), (IOKE, "Ioke"),
    (ABL, "OpenEdge ABL"), (BASH_SESSION, "Bash Session"), (PYTHON_CONSOLE, "Python console session"),
    (BLITZBASIC, "BlitzBasic"), (MOOCODE, "MOOCode"), (MUPAD, "MuPAD"), (SARL, "SARL"), (MYGHTY, "Myghty"),
]


@pytest.mark.parametrize("text, expected", POSITIVES, ids=[f"{name}-{i}" for i, (_, name) in enumerate(POSITIVES)])
def test_a_language_no_model_names_is_named_by_its_own_forms(text, expected):
    assert signatures.by_signature(text) == expected
    assert language.from_content(text.encode()) == expected


PYTHON_HOOKS = ("import unittest\n\nclass TallyTest(unittest.TestCase):\n    def before(self):\n        pass\n\n"
                "    def after(self):\n        call(*self.args, **self.kwargs)\n\n"
                "    def test_total(self):\n        self.assertEqual(call(2 * 3), 6)\n")
KOTLIN = ("package tally\n\nimport java.util.Locale\nimport kotlinx.coroutines.launch\n\n"
          "fun total(counts: List<Int>): Int = counts.sum()\n\nclass Counter {\n    var total = 0\n"
          "    val labels = mutableListOf<String>()\n    override fun toString(): String = \"$total\"\n}\n")
FSHARP = ("module Tally\n\nopen System\n\nlet mutable total = 0\n\nlet add (label : string) : int =\n"
          "    total <- total + 1\n    total\n\n[<EntryPoint>]\nlet main argv =\n"
          "    printfn \"%d\" (add \"fruit\")\n    0\n")
OCAML = ("open Printf;;\n\nlet total = ref 0 [@@inline]\n\nlet[@inline] add label =\n  total := !total + 1;\n"
         "  printf \"%s %d\\n\" label !total\n\nlet () = match Sys.argv with\n  | [| _; label |] -> add label\n"
         "  | _ -> ()\n\nlet x = 5 in\nprint_int x\n")
SWIFT = ("import Foundation\n\nextension String {\n    var shouted: String { uppercased() }\n}\n\n"
         "struct Tally {\n    var counts: [String: Int] = [:]\n    mutating func add(_ label: String) {\n"
         "        counts[label, default: 0] += 1\n    }\n}\n")
SCALA = ("package tally\n\nobject Counter {\n  val total: Int = 0\n  override def toString = s\"$total\"\n"
         "  def add(label: String): Int = total + 1\n}\n")
C_HEADER = ("#include <stdint.h>\n\nextern int tally_total;\nextern double tally_rate;\n"
            "typedef unsigned long long tally_count;\n\nstatic long long add(long long a, long long b)\n{\n"
            "    return a + b;\n}\n#define MODE_READ 1\n")
JS_CONFIG = ("module.exports = {\n  name: \"tally\",\n  srcs: [\"src/index.js\"],\n  deps: [\"lodash\"],\n"
             "  enabled: true,\n  visibility: [\"public\"],\n  required: [\"node\"],\n};\n\n"
             "function tally(words) {\n  return arguments.length + words.length;\n}\n")
README = ("# Tally\n\nTally counts words by label.\n\nBefore installing:\n\n* read the licence;\n\n"
          "After building:\n\n* run the tests.\n\nSection 1 - Usage\n\nThe kitchen is a room in the example.\n"
          "Check the following: the totals.\n")
MIPS = ("    .data\nmsg: .asciiz \"total\"\n    .text\nmain:\n    li $t0, 0\n    slt $t1, $t0, $a0\n"
        "    seq $t2, $t0, $zero\n    add.s $f0, $f1, $f2\n    jr $ra\n    .end main\n")
VERILOG = ("module tally(input clk, input [1:0] op, output reg [7:0] total);\n  always @(posedge clk) begin\n"
           "    case (op)\n      2'b01: total <= total + 1;\n      default: total <= total;\n    endcase\n  end\n"
           "endmodule\n")
PASCAL = ("program Tally;\nvar\n  i, total: Integer;\nbegin\n  total := 0;\n  for i := 1 to 10 do begin\n"
          "    if i mod 2 = 0 then begin\n      total := total + i;\n    end;\n  end;\n  writeln(total);\nend.\n")
VISUAL_BASIC = ("Module Tally\n    Function Add(ByVal total As Integer) As Integer\n        Return total + 1\n"
                "    End Function\n\n    Sub Main()\n        Dim total As Integer = 0\n"
                "        Const Step As Integer = 1\n        If total > 0 Then\n"
                "            Console.WriteLine(Add(total))\n        End If\n    End Sub\nEnd Module\n")
APL_SYMBOL_TABLE = ("# the APL symbols a keyboard composes\n"
                    "<Multi_key> <bar> <O> : \"⌽\" U233D # APL FUNCTIONAL SYMBOL CIRCLE STILE\n"
                    "<Multi_key> <less> <minus> : \"←\" U2190 # LEFTWARDS ARROW\n"
                    "<Multi_key> <o> <n> : \"⍝\" U235D # APL FUNCTIONAL SYMBOL UP SHOE JOT\n"
                    "<Multi_key> <w> <w> : \"⍵\" U2375 # APL FUNCTIONAL SYMBOL OMEGA\n"
                    "<Multi_key> <q> <q> : \"⎕\" U2395 # APL FUNCTIONAL SYMBOL QUAD\n"
                    "<Multi_key> <i> <i> : \"⍳\" U2373 # APL FUNCTIONAL SYMBOL IOTA\n")
TYPESCRIPT = ("class Tally extends Base {\n  private total: number = 0;\n  override render(): void {\n"
              "    console.log(this.total);\n  }\n  add(label: string) : void {\n    this.total += 1;\n  }\n}\n\n"
              "type Shape = Circle | Square;\n")
PHP = ("<?php\nnamespace Tally;\n\nclass Counter\n{\n    private $counts = [];\n\n"
       "    public function add(string $label): int\n    {\n        $this->counts[$label] = 1;\n"
       "        return $this->total();\n    }\n}\n")
JAVA = ("package tally;\n\nimport java.util.List;\n\npublic class Counter {\n    private String title = \"Tally\";\n"
        "    private Variable total;\n\n    public int add(List<String> labels) {\n"
        "        String first = labels.get(0);\n"
        "        return labels.size();\n    }\n}\n")
CORBA_IDL = ("module Tally {\n  interface Counter {\n    readonly attribute long long total;\n"
             "    attribute string title;\n    void add(in string label, out long count);\n  };\n};\n")
HASKELL = ("module Tally where\n\nimport qualified Data.Map as Map\n\ntally :: [String] -> Map.Map String Int\n"
           "tally = Map.fromListWith (+) . map (\\w -> (w, 1))\n\n-- > tally [\"a\"]\n-- fromList [(\"a\",1)]\n")
EMAIL_QUOTE = ("On Monday, Ada wrote:\n> module loading fails on my machine\n> import of the tally package\n"
               "> data from last week is gone\n\nThanks, I will look.\n")
LOG_WITH_TRACEBACK = ("2026-01-02 10:00:01 INFO tally started\n2026-01-02 10:00:02 ERROR count failed\n"
                      "Traceback (most recent call last):\n  File \"/srv/tally/count.py\", line 4, in add\n"
                      "    return counts[label] + 1\nKeyError: 'fruit'\n")
INI = ("[tally]\nlabel = fruit\ntotal = 3\nstep = 1*2\npath = /srv/tally\n")
LEAN_AXIOM = ("axiom choice : ∀ α : Type, Nonempty α → α\n\ntheorem total_pos (n : Nat) : n + 1 > 0 := by\n"
              "  omega\n")
CSS = (":root {\n  --accent: #c00;\n}\n.tally {\n  color: var(--accent);\n  width: calc(100% - 2em);\n}\n")
YAML = ("name: tally\ntype: module\nitems:\n  - a list of things\n  - another\n")
VB_CLASS = ("Public Class Tally\n    Private total As Integer\n\n    Public Function Add() As Integer\n"
            "        total += 1\n        Return total\n    End Function\nEnd Class\n\nClass Label\nEnd Class\n")
CSHARP = ("using System;\n\nclass Tally : Counter\n{\n    public int Total { get; set; }\n}\n\n"
          "class Window : Form\n{\n}\n")
GO = ("package main\n\nimport \"fmt\"\n\nfunc main() {\n\ttotal := 0\n\tlabels := []string{\"fruit\"}\n"
      "\tfmt.Println(total, labels)\n}\n")
PHP_INCLUDE = ("<?php\ninclude 'header.php';\ninclude \"footer.php\";\n$template = 'tally';\n"
               "$total = 3;\nfunction tally($x) { return $x; }\n")
CHAT_PAGE = ("<html><body>\n<p>10:01 <b>ada</b> said hello</p>\n<p>10:02 <i>bob</i> replied</p>\n"
             "<p>Log opened by the moderator.</p>\n</body></html>\n")
SQL_LOOP = ("-- every label's total\nFOR rec IN SELECT label, total FROM counts LOOP\n"
            "  RAISE NOTICE '%', rec.label;\nEND LOOP;\nDEFINE total = 3;\nEND;\n")
README_COMMANDS = ("Tally\n=====\n\nInstall it and count:\n\n$ pip install tally\n$ tally counts.txt\n\n"
                   "The counts print one label a line.\n")
SHELL_SCRIPT = ("#!/bin/sh\n# count the labels\nset -e\nfor f in \"$@\"; do\n  wc -l \"$f\"\ndone\n"
                "echo \"$# files\"\n")
DOCTEST_TEXT = ("Counting\n--------\n\nThe tally counts words:\n\n>>> from tally import count\n>>> count(['a'])\n"
                "{'a': 1}\n")
MASON = ("<%args>\n    $labels\n</%args>\n<%init>\n    my $total = scalar @$labels;\n</%init>\n"
         "% foreach my $label (@$labels) {\n<li><% $label %></li>\n% }\n<& footer.mas, total => $total &>\n"
         "% $m->comp('/done.mas');\n")
VIM_SCRIPT = ("\" count the words\nfunction! Tally(words)\n  let counts = {}\n  for w in a:words\n"
              "    if has_key(counts, w)\n      let counts[w] += 1\n    else\n      let counts[w] = 1\n    endif\n"
              "  endfor\n  return counts\nendfunction\n")
G_PROSE = ("The G1 and G2 classes differ.\nModels M104 and M140 were compared in T1.\n")

NEGATIVES = [PYTHON_HOOKS, KOTLIN, FSHARP, OCAML, SWIFT, SCALA, C_HEADER, JS_CONFIG, README, MIPS, VERILOG, PASCAL,
             VISUAL_BASIC, APL_SYMBOL_TABLE, TYPESCRIPT, PHP, JAVA, CORBA_IDL, HASKELL, EMAIL_QUOTE,
             LOG_WITH_TRACEBACK, INI, LEAN_AXIOM, CSS, YAML, G_PROSE, VB_CLASS, CSHARP, GO, PHP_INCLUDE, CHAT_PAGE,
             SQL_LOOP, README_COMMANDS, SHELL_SCRIPT, DOCTEST_TEXT, MASON, VIM_SCRIPT]


@pytest.mark.parametrize("text", NEGATIVES)
def test_near_languages_that_write_a_few_of_the_same_words_are_not_claimed(text):
    # Python's `def after(self):` and `call(*args)` (AspectJ), Kotlin (Golo, Koka, Xtend), F#'s
    # `let mutable` and `) : int =` (Nemerle), OCaml's `;;`, `[@@inline]` and `let ... in` (Reason,
    # TableGen), Swift's extensions and TypeScript's `override` (Xtend), Scala's `override def`, C's
    # `extern int` and `long long` (MQL, Web IDL), a JavaScript object (Soong), a README's "Before
    # installing:" (Inform 7), MIPS's `slt` (Redcode), Verilog's `endcase` and Pascal's `then begin`
    # (IDL), Visual Basic's `End Function` (BlitzMax, IGOR Pro), a table of APL's symbols, PHP's
    # `public function` (ColdFusion), Java's `String x =` (IGOR Pro), CORBA's IDL (Web IDL), Haskell
    # with a doctest and a quoted e-mail (literate Haskell), a log quoting a traceback, INI, Lean's
    # `axiom` (Boogie), CSS's `var(--x)` (Lasso), YAML's `type: module` and a list of things (Limbo),
    # prose naming G1 and M104 (g-code)
    assert signatures.by_signature(text) not in {*signatures_general.SIGNATURES, *signatures_domain.SIGNATURES}


def test_every_match_of_a_form_holds_one_of_its_literals():
    # a form is looked for only where one of its literals occurs
    tables = {**signatures_general.SIGNATURES, **signatures_domain.SIGNATURES}
    matched, kinds = forms_hold_their_literals(tables, [text for text, _ in POSITIVES] + NEGATIVES)
    assert matched >= 0.9 * kinds   # most forms occur in the texts above, so the check reads them


def test_each_language_is_a_pygments_name():
    names = set(language.registry().by_alias.values())
    assert set(signatures_general.SIGNATURES) | set(signatures_domain.SIGNATURES) <= names


def test_koka_standard_library_imports_are_not_gleam_modules():
    koka = ("import std/os/path\nimport std/text/parse\n\nfun main() : io ()\n  println(\"tally\")\n"
            "  list(1, 10).foreach fn(x){ println(x) }\n")
    assert signatures.by_signature(koka) == "Koka"


def test_a_windows_or_old_mac_line_end_ends_a_line_for_every_form():
    for line_end in ("\r\n", "\r"):
        assert language.from_content(WOW_TOC.replace("\n", line_end).encode()) == "World of Warcraft TOC"
        assert language.from_content(IGOR.replace("\n", line_end).encode()) == "Igor"

