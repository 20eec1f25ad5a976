"""The families' tables of languages no content model names (quarry.snapshot.signatures_markup,
signatures_code, signatures_specs): every text here is written for these tests from the
language's documentation, and each near language's file that writes a few of the same words stays
what it is."""

import pytest
from signature_checks import forms_hold_their_literals

from quarry.snapshot import (language, signatures, signatures_code, signatures_domain, signatures_general,
                             signatures_markup, signatures_specs)

SASS = ("$accent: #c00\n$gap: 4px\n\n=bordered($width: 1px)\n  border: $width solid $accent\n\n"
        ".nav\n  padding: $gap * 2\n  +bordered(2px)\n  &:hover\n    color: darken($accent, 10%)\n\n"
        "@each $name in fruit, pear\n  .label-#{$name}\n    background: url(\"/#{$name}.png\")\n")
HAML = ("!!! 5\n%html\n  %head\n    %title= @title\n  %body\n    -# the tally, label by label\n"
        "    %ul.counts\n      - @counts.each do |count|\n        %li{ :class => count.label }= count.total\n"
        "    - if @counts.empty?\n      %p No counts yet.\n    :javascript\n      console.log('tally');\n")
PUG = ("extends layout\n\nblock content\n  //- the tally, label by label\n  h1= title\n  ul.counts\n"
       "    each count in counts\n      li(class=count.label)= count.total\n  if !counts.length\n"
       "    p No counts yet.\n  a(href='/new', title='Count again') Count\n  script.\n    console.log('tally')\n")
SLIM = ("doctype html\nhtml\n  head\n    title = @title\n    meta name=\"viewport\" content=\"width=device-width\"\n"
        "  body\n    /! the tally, label by label\n    ul.counts\n      - @counts.each do |count|\n"
        "        li = count.total\n    - if @counts.empty?\n      p\n        | No counts yet.\n    = yield\n")
TYPST = ("#set page(paper: \"a4\", margin: 2cm)\n#set text(font: \"Linux Libertine\", size: 11pt)\n"
         "#show heading: set text(navy)\n#import \"@preview/tablex:0.0.8\": tablex\n\n= Tally\n\n"
         "#let total(counts) = counts.values().sum()\n\nThe week counted #total((a: 1, b: 2)) words.\n\n"
         "#figure(image(\"tally.png\", width: 80%), caption: [Words by label])\n")
WIKITEXT = ("{{Infobox software\n| name = Tally\n}}\n'''Tally''' counts words by label.<ref>The tally manual.</ref>\n\n"
            "== History ==\nIt was written for the [[Example project|example project]].\n\n"
            "== Labels ==\n{| class=\"wikitable\"\n! Label !! Words\n|-\n| fruit || 3\n|}\n\n"
            "== References ==\n<references />\n\n[[Category:Counting software]]\n")
FISH = ("function tally --description 'Count the words of the files given'\n    set -l total 0\n"
        "    for file in $argv\n        set -l words (wc -w < $file)\n        set total (math $total + $words)\n"
        "    end\n"
        "    if status is-interactive\n        set_color green\n    end\n    echo $total\n    set_color normal\nend\n\n"
        "complete -c tally -s h -l help -d 'Show the help'\n")
TCSH = ("#!/bin/tcsh -f\n# count the words of each file given\nset total = 0\nif ($#argv == 0) then\n"
        "    echo \"usage: tally file...\"\n    exit 1\nendif\nforeach file ($argv)\n"
        "    @ total = $total + `wc -w < $file`\nend\nsetenv TALLY_TOTAL $total\n"
        "switch ($total)\n    case 0:\n        echo none\n        breaksw\n    default:\n        echo $total\nendsw\n")
GLEAM = ("import gleam/io\nimport gleam/list\nimport gleam/int\n\npub type Count {\n"
         "  Count(label: String, total: Int)\n}\n\n"
         "pub fn totals(counts: List(Count)) -> List(Int) {\n  list.map(counts, fn(count) { count.total })\n}\n\n"
         "pub fn main() -> Nil {\n  let counts = [Count(\"fruit\", 3), Count(\"pear\", 1)]\n"
         "  io.println(int.to_string(list.length(counts)))\n}\n")
HY = ("(import os)\n(require hyrule [->])\n\n(defclass Tally [object]\n  (defn __init__ [self]\n"
      "    (setv self.counts {}))\n  (defn add [self label]\n"
      "    (setv (get self.counts label) (+ 1 (.get self.counts label 0)))))\n\n"
      "(setv tally (Tally))\n(for [label [\"fruit\" \"pear\" \"fruit\"]] (.add tally label))\n"
      "(print f\"{(len tally.counts)} labels\")\n(setv totals (lfor [k v] (.items tally.counts) v))\n")
JANET = ("(import spork/json)\n\n(defn tally [words]\n  (def counts @{})\n  (each word words\n"
         "    (put counts word (+ 1 (get counts word 0))))\n  counts)\n\n(var total 0)\n"
         "(loop [word :in @[\"fruit\" \"pear\" \"fruit\"]]\n  (++ total))\n"
         "(print (string/format \"%d words\" total))\n(array/push @[] total)\n")
VYPER = ("# @version ^0.3.10\n\nevent Counted:\n    label: indexed(String[32])\n    total: uint256\n\n"
         "owner: public(address)\ncounts: public(HashMap[String[32], uint256])\n\n@external\ndef __init__():\n"
         "    self.owner = msg.sender\n\n@external\ndef count(label: String[32]) -> uint256:\n"
         "    self.counts[label] += 1\n    log Counted(label, self.counts[label])\n    return self.counts[label]\n\n"
         "@view\n@external\ndef total(label: String[32]) -> uint256:\n    return self.counts[label]\n")
LUAU = ("--!strict\nlocal Players = game:GetService(\"Players\")\n\ntype Count = {\n  label: string,\n"
        "  total: number,\n}\n\n"
        "local counts: {[string]: Count} = {}\n\nlocal function add(label: string): number\n"
        "  local count = counts[label] or { label = label, total = 0 }\n  count.total += 1\n"
        "  counts[label] = count\n  return count.total\nend\n\nPlayers.PlayerAdded:Connect(function(player)\n"
        "  add(player.Name)\nend)\n")
LSL = ("integer total = 0;\n\ndefault\n{\n    state_entry()\n    {\n"
       "        llSetText(\"Tally: 0\", <1.0, 1.0, 1.0>, 1.0);\n"
       "    }\n\n    touch_start(integer count)\n    {\n        total += count;\n"
       "        llSay(0, \"Counted \" + (string)total);\n    }\n}\n")
SOURCEPAWN = ("#pragma semicolon 1\n#pragma newdecls required\n#include <sourcemod>\n\n"
              "public Plugin myinfo =\n{\n    name = \"Tally\",\n    author = \"Ada\",\n    version = \"1.0\"\n};\n\n"
              "int g_Total;\n\npublic void OnPluginStart()\n{\n    RegConsoleCmd(\"sm_tally\", Command_Tally);\n}\n\n"
              "public Action Command_Tally(int client, int args)\n{\n    g_Total++;\n"
              "    ReplyToCommand(client, \"Counted %d\", g_Total);\n    return Plugin_Handled;\n}\n")
NESC = ("module TallyC @safe() {\n  uses interface Boot;\n  uses interface Timer<TMilli> as Timer0;\n"
        "  uses interface Leds;\n}\nimplementation {\n  uint16_t total = 0;\n\n  task void report() {\n"
        "    call Leds.led0Toggle();\n  }\n\n  event void Boot.booted() {\n    call Timer0.startPeriodic(250);\n  }\n\n"
        "  event void Timer0.fired() {\n    total++;\n    post report();\n  }\n}\n")
JASMIN = (".class public Tally\n.super java/lang/Object\n\n.method public <init>()V\n   aload_0\n"
          "   invokespecial java/lang/Object/<init>()V\n   return\n.end method\n\n"
          ".method public static main([Ljava/lang/String;)V\n   .limit stack 2\n   .limit locals 1\n"
          "   getstatic java/lang/System/out Ljava/io/PrintStream;\n   ldc \"tally\"\n"
          "   invokevirtual java/io/PrintStream/println(Ljava/lang/String;)V\n   return\n.end method\n")
DYLAN = ("Module: tally\nSynopsis: Count words by label\n\ndefine class <count> (<object>)\n"
         "  slot count-label :: <string>, required-init-keyword: label:;\n"
         "  slot count-total :: <integer> = 0;\nend class <count>;\n\n"
         "define method add! (count :: <count>) => (total :: <integer>)\n"
         "  count.count-total := count.count-total + 1\nend method add!;\n\n"
         "format-out(\"%d\\n\", add!(make(<count>, label: \"fruit\")));\n")
ZEPHIR = ("namespace Tally;\n\nclass Counter\n{\n    protected counts = [];\n\n"
          "    public function add(string label) -> int\n    {\n        int total, step = 1;\n"
          "        let this->counts[label] = this->total(label) + step;\n        let total = this->counts[label];\n"
          "        return total;\n    }\n\n    public function total(string label) -> int\n    {\n"
          "        var count;\n        if fetch count, this->counts[label] {\n            return count;\n        }\n"
          "        return 0;\n    }\n}\n")
LOGTALK = (":- object(tally).\n\n    :- info([\n        version is 1:0:0,\n"
           "        comment is 'Counts words by label.'\n"
           "    ]).\n\n    :- public(count/2).\n    :- private(total_/2).\n    :- dynamic(total_/2).\n\n"
           "    count(Label, Total) :-\n        (   total_(Label, Old) -> Total is Old + 1\n        ;   Total = 1\n"
           "        ),\n        list::length([Label], _).\n\n:- end_object.\n")
SUPERCOLLIDER = ("s.boot;\n\n(\nSynthDef(\\tally, { |out = 0, freq = 440, amp = 0.2|\n"
                 "    var sig = SinOsc.ar(freq) * EnvGen.kr(Env.perc, doneAction: 2);\n"
                 "    Out.ar(out, sig ! 2 * amp);\n}).add;\n)\n\n~counts = [1, 3, 2];\n\n"
                 "Pbind(\\instrument, \\tally, \\freq, Pseq(~counts * 220, inf), \\dur, 0.25).play;\n")
CSOUND_DOCUMENT = ("<CsoundSynthesizer>\n<CsOptions>\n-odac\n</CsOptions>\n<CsInstruments>\nsr = 44100\nksmps = 32\n"
                   "nchnls = 2\n0dbfs = 1\n\ninstr 1\n  aenv linseg 0, 0.01, p4, p3 - 0.02, p4, 0.01, 0\n"
                   "  asig oscili aenv, p5\n  outs asig, asig\nendin\n</CsInstruments>\n<CsScore>\n"
                   "i 1 0 1 0.3 440\ne\n</CsScore>\n</CsoundSynthesizer>\n")
CSOUND_ORCHESTRA = ("sr = 48000\nksmps = 64\nnchnls = 2\n0dbfs = 1\n\ninstr Tally\n  kenv madsr 0.01, 0.1, 0.6, 0.2\n"
                    "  asig vco2 p4 * kenv, p5\n  outs asig, asig\nendin\n")
LEAN4 = ("import Mathlib.Data.Nat.Basic\n\nnamespace Tally\n\nstructure Count where\n  label : String\n  total : Nat\n"
         "deriving Repr\n\ndef Count.add (c : Count) : Count := { c with total := c.total + 1 }\n\n"
         "def totals : List Count → Nat\n  | [] => 0\n  | c :: cs => c.total + totals cs\n\n"
         "theorem totals_nil : totals [] = 0 := by\n  rfl\n\n#eval totals [⟨\"fruit\", 3⟩]\n\n"
         "example : (fun n : Nat => n + 0) 3 = 3 := by simp\n\nend Tally\n")
LEAN3 = ("import data.nat.basic\nimport tactic\n\nvariables {α : Type*} (n : ℕ)\n\nnamespace tally\n\n"
         "def total : list ℕ → ℕ\n| [] := 0\n| (x :: xs) := x + total xs\n\n"
         "theorem total_nil : total [] = 0 :=\nbegin\n  refl,\nend\n\n"
         "lemma total_add (m : ℕ) : total [m] = m :=\nbegin\n  simp [total],\nend\n\n"
         "#check λ x : ℕ, x + 1\n\nend tally\n")
ISABELLE = ("theory Tally\n  imports Main\nbegin\n\nfun total :: \"nat list \\<Rightarrow> nat\" where\n"
            "  \"total [] = 0\"\n| \"total (x # xs) = x + total xs\"\n\n"
            "lemma total_append: \"total (xs @ ys) = total xs + total ys\"\n  apply (induct xs)\n   apply simp\n"
            "  apply simp\n  done\n\ntheorem total_rev: \"total (rev xs) = total xs\"\n"
            "  by (induct xs) (auto simp: total_append)\n"
            "\nend\n")
ALLOY = ("module tally\n\nopen util/ordering[Week]\n\nsig Week {}\n\nabstract sig Label {\n"
         "  counts: Week -> lone Int\n}\n"
         "one sig Fruit, Pear extends Label {}\n\nfact positive {\n  all l: Label, w: Week | l.counts[w] >= 0\n}\n\n"
         "pred grows [l: Label] {\n  all w: Week - last | l.counts[w.next] >= l.counts[w]\n}\n\n"
         "assert nonNegative {\n  all l: Label | all w: Week | l.counts[w] >= 0\n}\n\n"
         "check nonNegative for 4\nrun grows for 3 but 2 Week\n")
PROMELA = ("mtype = { count, done };\nchan tally = [4] of { mtype, byte };\nbyte total = 0;\n\n"
           "active proctype Counter() {\n  byte n;\n  do\n  :: tally ? count, n -> total = total + n\n"
           "  :: tally ? done, _ -> break\n  od\n}\n\ninit {\n  atomic {\n    tally ! count, 3;\n"
           "    tally ! done, 0\n  }\n}\n\n"
           "ltl positive { [] (total >= 0) }\n")
PDDL = ("(define (domain tally)\n  (:requirements :strips :typing)\n  (:types word label)\n"
        "  (:predicates (counted ?w - word) (under ?w - word ?l - label))\n\n  (:action count\n"
        "    :parameters (?w - word ?l - label)\n    :precondition (and (under ?w ?l) (not (counted ?w)))\n"
        "    :effect (counted ?w)))\n")
PDDL_PROBLEM = ("(define (problem week-one)\n  (:domain tally)\n  (:objects apple pear - word fruit - label)\n"
                "  (:init (under apple fruit) (under pear fruit))\n  (:goal (and (counted apple) (counted pear))))\n")
MODELICA = ("within Tally.Examples;\nmodel Tank \"A tank filled at a constant rate\"\n"
            "  parameter Real area = 2.0 \"Cross section\";\n  parameter Real inflow = 0.1;\n"
            "  Real level(start = 0) \"Water level\";\n  output Real volume;\nequation\n"
            "  der(level) = inflow / area;\n  volume = area * level;\n"
            "  annotation (experiment(StopTime = 100));\nend Tank;\n")
AMPL = ("set LABELS;\nparam words {LABELS} >= 0;\nparam budget;\n\nvar take {l in LABELS} >= 0, <= words[l];\n\n"
        "maximize Counted: sum {l in LABELS} take[l];\n\nsubject to Budget: sum {l in LABELS} take[l] <= budget;\n")
KUSTO = ("let window = 7d;\nStormEvents\n| where StartTime > ago(7d)\n| where State == \"TEXAS\"\n"
         "| extend Duration = EndTime - StartTime\n"
         "| summarize Count = count(), Total = sum(DamageProperty) by EventType\n"
         "| top 10 by Count desc\n| render barchart\n")
CYPHER = ("MATCH (p:Person {name: 'Ada'})-[:WROTE]->(d:Document)\nWHERE d.year >= 2020\n"
          "RETURN d.title, count(*) AS total\nORDER BY total DESC;\n\n"
          "MERGE (l:Label {name: 'fruit'})\nON CREATE SET l.created = timestamp()\n"
          "WITH l\nUNWIND ['apple', 'pear'] AS word\nCREATE (w:Word {text: word})-[:UNDER]->(l);\n")
JSONNET = ("local lib = import 'tally.libsonnet';\nlocal labels = ['fruit', 'pear'];\n\n{\n  name: 'tally',\n"
           "  replicas:: 2,\n  counts: {\n    [label]: std.length(label)\n    for label in labels\n  },\n"
           "  config+: {\n    labels: std.join(',', labels),\n  },\n"
           "  total: std.foldl(function(a, b) a + b, [1, 2], 0),\n}\n")
VCL = ("vcl 4.1;\n\nimport std;\n\nbackend default {\n    .host = \"127.0.0.1\";\n    .port = \"8080\";\n}\n\n"
       "sub vcl_recv {\n    if (req.url ~ \"^/admin\") {\n        return (pass);\n    }\n"
       "    unset req.http.Cookie;\n    return (hash);\n}\n\nsub vcl_backend_response {\n"
       "    set beresp.ttl = 5m;\n}\n\nsub vcl_deliver {\n    set resp.http.X-Tally = \"counted\";\n}\n")
ZEEK = ("@load base/protocols/http\n\nmodule Tally;\n\nexport {\n    redef enum Log::ID += { LOG };\n\n"
        "    type Info: record {\n        ts: time &log;\n        host: string &log &optional;\n    };\n\n"
        "    global counts: table[string] of count &default=0;\n}\n\n"
        "event zeek_init() &priority=5\n    {\n    Log::create_stream(Tally::LOG, [$columns=Info, $path=\"tally\"]);\n"
        "    }\n\nevent http_request(c: connection, method: string, original_URI: string,\n"
        "                   unescaped_URI: string, version: string)\n    {\n    ++counts[c$http$host];\n    }\n")
BITBAKE = ("SUMMARY = \"Count words by label\"\nHOMEPAGE = \"https://example.org/tally\"\nLICENSE = \"MIT\"\n"
           "LIC_FILES_CHKSUM = \"file://LICENSE;md5=0835ade698e0bcf8506ecda2f7b4f302\"\n\n"
           "SRC_URI = \"git://example.org/tally.git;protocol=https;branch=main\"\nSRCREV = \"${AUTOREV}\"\n\n"
           "S = \"${WORKDIR}/git\"\n\ninherit autotools pkgconfig\n\ndo_install:append() {\n"
           "    install -d ${D}${sysconfdir}/tally\n    install -m 0644 ${S}/tally.conf ${D}${sysconfdir}/tally/\n}\n\n"
           "RDEPENDS:${PN} += \"bash\"\n")
SIEVE = ("require [\"fileinto\", \"envelope\", \"imap4flags\"];\n\n"
         "if header :contains \"List-Id\" \"<tally.example.org>\" {\n    fileinto \"INBOX.tally\";\n    stop;\n}\n\n"
         "if allof (address :is \"from\" \"ada@example.org\", size :under 100K) {\n"
         "    addflag \"\\\\Flagged\";\n    keep;\n}\n\nif exists \"X-Spam\" {\n    discard;\n}\n")
AUGEAS = ("module Tally =\n  autoload xfm\n\nlet eol = Util.eol\nlet comment = Util.comment\n"
          "let entry = [ key /[a-z]+/ . del /[ \\t]*=[ \\t]*/ \" = \" . store /[^\\n]+/ . eol ]\n\n"
          "let lns = ( Util.empty | comment | entry )*\n\nlet filter = incl \"/etc/tally.conf\"\n\n"
          "let xfm = transform lns filter\n")
MCFUNCTION = ("# count the players on each team\nscoreboard objectives add tally dummy\n"
              "scoreboard players set @a tally 0\nexecute as @a[team=red] run scoreboard players add @s tally 1\n"
              "execute at @p run setblock ~ ~1 ~ minecraft:gold_block\n"
              "tellraw @a {\"text\":\"Counted\",\"color\":\"gold\"}\nfunction tally:report\n")

LIVESCRIPT = ("require! {\n  path\n  'prelude-ls': {map, sum}\n}\n\nlabel-of = (file-path) ->\n"
              "  path.basename file-path .to-lower-case!\n\ntally = (words) --> sum map (.length), words\n\n"
              "kinds = <[ fruit pear plum ]>\nfor n in [1 to 3]\n  console.log label-of \"tally-#n.txt\"\n")
CSOUND_OPCODES = ("; the words counted so far\nopcode tally,k,k\n  kstep xin\n  ktotal init 0\n"
                  "  ktotal = ktotal + kstep\n  xout ktotal\nendop\n")
SUPERCOLLIDER_CLASS = ("Tally : UGen {\n\t*ar { |input, step = 1|\n\t\t^this.multiNew('audio', input, step);\n\t}\n}\n")
ZEPHIR_LOOPS = ("namespace Tally;\n\nclass Words\n{\n    public function count(array! words, string! label)\n    {\n"
                "        var key, value;\n        for key, value in words {\n            let {key} = value;\n"
                "        }\n"
                "        return count(words);\n    }\n}\n")
WIKITEXT_LINKS = ("== Tally ==\nThe tally counts words by label, as [https://example.org/tally the manual] says.\n\n"
                  "== See also ==\n* [https://example.org/labels Labels]\n")
LUAU_PARAMETERS = ("local Players = game:GetService(\"Players\")\n\n"
                   "local function tally(label: string?, step: number)\n"
                   "  return (step or 1)\nend\n\nreturn tally\n")

PAWN = ("#include <a_samp>\n\nnew gTotal = 0;\nnew Float:gStep = 1.0;\n\nforward CountUp(playerid);\n\n"
        "public OnGameModeInit()\n{\n    SetGameModeText(\"Tally\");\n    return 1;\n}\n\n"
        "public OnPlayerConnect(playerid)\n{\n    gTotal++;\n    return CountUp(playerid);\n}\n\n"
        "stock CountUp(playerid)\n{\n    SendClientMessage(playerid, -1, \"counted\");\n    return 1;\n}\n")
RAGEL = ("#include <stdio.h>\n\n%%{\n    machine tally;\n    action count { total++; }\n"
         "    word = alpha+ %count;\n    main := ( word | space )*;\n}%%\n\n%% write data;\n\n"
         "int tally(const char *p, const char *pe)\n{\n    int cs, total = 0;\n    %% write init;\n    %% write exec;\n"
         "    return total;\n}\n")
LOGOS = ("#import <UIKit/UIKit.h>\n\n%hook SBIconController\n- (void)viewDidLoad {\n    %orig;\n"
         "    NSLog(@\"tally: loaded\");\n}\n%end\n\n%ctor {\n    %init;\n}\n")
OBJECTIVE_J = ("@import <Foundation/CPObject.j>\n@import \"TallyView.j\"\n\n@implementation Tally : CPObject\n{\n"
               "    CPArray counts;\n}\n\n- (id)init\n{\n    self = [super init];\n    counts = [CPArray array];\n"
               "    return self;\n}\n\n- (void)add:(CPString)aLabel\n{\n    [counts addObject:aLabel];\n}\n\n@end\n\n"
               "var tally = [[Tally alloc] init];\n")
X10 = ("import x10.io.Console;\n\npublic class Tally {\n    public static def main(args:Rail[String]) {\n"
       "        val counts:Rail[Long] = new Rail[Long](4);\n        finish for (p in Place.places()) {\n"
       "            at (p) async {\n                Console.OUT.println(\"counting at \" + here);\n            }\n"
       "        }\n"
       "    }\n}\n")
WHILEY = ("import std::io\n\ntype nat is (int x) where x >= 0\n\nfunction total(int[] counts) -> (int r)\n"
          "requires |counts| > 0\nensures r >= 0:\n    int sum = 0\n    for i in 0..|counts|:\n"
          "        sum = sum + counts[i]\n    return sum\n\nmethod main():\n    io::println(\"tally\")\n")
GAP = ("# the orbits of a group acting on points\nOrbitTally := function(G, points)\n    local counts, p, orb;\n"
       "    counts := [];\n    for p in points do\n        orb := Orbit(G, p);\n"
       "        if not Size(orb) in counts then\n"
       "            Add(counts, Size(orb));\n        fi;\n    od;\n    return counts;\nend;\n\n"
       "DeclareOperation(\"Tally\", [IsGroup]);\nInstallMethod(Tally, [IsGroup], G -> OrbitTally(G, [1..5]));\n")
MACAULAY2 = ("needsPackage \"Elimination\"\n\nR = QQ[x, y, z]\nI = ideal(x^2 - y, y^2 - z)\nG = gb I\n"
             "tally = method()\ntally Ideal := J -> numgens J\nprint tally I\n")
ASYMPTOTE = ("import graph;\nsize(200, 150);\n\nreal f(real x) { return x^2; }\npair origin = (0, 0);\n"
             "draw(graph(f, -1, 1), blue);\ndraw((0,0)--(1,1)--(1,0)--cycle);\nlabel(\"$y=x^2$\", (0.5, 0.8), N);\n")
NCL = ("load \"$NCARG_ROOT/lib/ncarg/nclscripts/csm/gsn_code.ncl\"\n\nbegin\n  f = addfile(\"tally.nc\", \"r\")\n"
       "  t = f->counts\n  wks = gsn_open_wks(\"png\", \"tally\")\n  res = True\n  res@gsnMaximize = True\n"
       "  plot = gsn_csm_xy(wks, t&time, t, res)\nend\n")
SINGULARITY = ("Bootstrap: docker\nFrom: python:3.11-slim\n\n%files\n    tally.py /opt/tally.py\n\n%post\n"
               "    pip install --no-cache-dir numpy\n\n%environment\n    export TALLY_HOME=/opt\n\n%runscript\n"
               "    exec python /opt/tally.py \"$@\"\n\n%labels\n    Author Ada\n")
TYPOSCRIPT = ("page = PAGE\npage.typeNum = 0\npage.10 = FLUIDTEMPLATE\npage.10 {\n"
              "  file = EXT:tally/Resources/Page.html\n"
              "}\n\nlib.tally = COA\nlib.tally.10 = TEXT\nlib.tally.10.value = Tally\n\n"
              "<INCLUDE_TYPOSCRIPT: source=\"FILE:EXT:tally/setup.typoscript\">\n")
USD = ("#usda 1.0\n(\n    defaultPrim = \"Tally\"\n    upAxis = \"Y\"\n)\n\ndef Xform \"Tally\" (\n"
       "    kind = \"component\"\n)\n{\n    def Sphere \"Ball\"\n    {\n        double radius = 1.5\n"
       "        float3[] extent = [(-1.5, -1.5, -1.5), (1.5, 1.5, 1.5)]\n    }\n}\n")
REGO = ("package tally.authz\n\nimport rego.v1\nimport data.tally.roles\n\ndefault allow := false\n\n"
        "allow if {\n    some role in roles[input.user.name]\n    role == \"counter\"\n}\n\n"
        "counted contains label if {\n    some label in input.request.labels\n}\n")
PIG = ("counts = LOAD 'tally/words.tsv' USING PigStorage('\\t') AS (label:chararray, total:int);\n"
       "grouped = GROUP counts BY label;\nsums = FOREACH grouped GENERATE group AS label, SUM(counts.total) AS total;\n"
       "ordered = ORDER sums BY total DESC;\nSTORE ordered INTO 'tally/out' USING PigStorage(',');\nDUMP ordered;\n")

POSITIVES = [
    (SASS, "Sass"), (HAML, "Haml"), (PUG, "Pug"), (SLIM, "Slim"), (TYPST, "Typst"), (WIKITEXT, "Wikitext"),
    (FISH, "Fish"), (TCSH, "Tcsh"), (GLEAM, "Gleam"), (HY, "Hy"), (JANET, "Janet"), (VYPER, "Vyper"), (LUAU, "Luau"),
    (LSL, "LSL"), (SOURCEPAWN, "SourcePawn"), (NESC, "nesC"), (JASMIN, "Jasmin"), (DYLAN, "Dylan"),
    (ZEPHIR, "Zephir"), (LOGTALK, "Logtalk"), (SUPERCOLLIDER, "SuperCollider"), (CSOUND_DOCUMENT, "Csound Document"),
    (CSOUND_ORCHESTRA, "Csound Orchestra"), (LEAN4, "Lean4"), (LEAN3, "Lean"), (ISABELLE, "Isabelle"),
    (ALLOY, "Alloy"), (PROMELA, "Promela"), (PDDL, "PDDL"), (PDDL_PROBLEM, "PDDL"), (MODELICA, "Modelica"),
    (AMPL, "Ampl"), (KUSTO, "Kusto"), (CYPHER, "Cypher"), (JSONNET, "Jsonnet"), (VCL, "VCL"), (ZEEK, "Zeek"),
    (BITBAKE, "BitBake"), (SIEVE, "Sieve"), (AUGEAS, "Augeas"), (MCFUNCTION, "MCFunction"),
    (LIVESCRIPT, "LiveScript"), (CSOUND_OPCODES, "Csound Orchestra"), (SUPERCOLLIDER_CLASS, "SuperCollider"),
    (ZEPHIR_LOOPS, "Zephir"), (WIKITEXT_LINKS, "Wikitext"), (LUAU_PARAMETERS, "Luau"), (PAWN, "Pawn"),
    (RAGEL, "Ragel"), (LOGOS, "Logos"), (OBJECTIVE_J, "Objective-J"), (X10, "X10"), (WHILEY, "Whiley"), (GAP, "GAP"),
    (MACAULAY2, "Macaulay2"), (ASYMPTOTE, "Asymptote"), (NCL, "NCL"), (SINGULARITY, "Singularity"),
    (TYPOSCRIPT, "TypoScript"), (USD, "USD"), (REGO, "Rego"), (PIG, "Pig")]


@pytest.mark.parametrize("text,expected", POSITIVES)
def test_a_language_no_model_names_is_named_by_its_own_forms(text, expected):
    assert language.detect("00000007", text.encode()[:512], text) == expected


SCSS = ("$accent: #c00;\n$sizes: (\n  small: 4px,\n  large: 8px,\n);\n\n@mixin bordered($width: 1px) {\n"
        "  border: $width solid $accent;\n}\n\n.nav {\n  @include bordered(2px);\n"
        "  &:hover { color: darken($accent, 10%); }\n}\n")
YAML_THEME = ("$schema: https://example.org/theme.schema.json\ntheme:\n  header:\n    color: navy\n"
              "    background: white\n"
              "  footer:\n    margin: 4px\n    display: none\n")
PERL_POD = ("package Tally;\nour $VERSION = '1.0';\n\n=head1 NAME\n\nTally - count words by label\n\n=cut\n\n"
            "sub count {\n    my ($self, @words) = @_;\n    my %seen = map { $_ => 1 } @{$self->{words}};\n"
            "    print \"last index $#words\\n\";\n    return scalar @{[ keys %seen ]};\n}\n\n"
            "$Tally::DEBUG: {\n    print STDERR \"debug\\n\";\n}\n1;\n")
ERB = ("<!DOCTYPE html>\n<html>\n<body>\n<% @counts.each do |count| %>\n"
       "  <li class=\"<%= count.label %>\"><%= count.total %></li>\n"
       "<% end %>\n<%= link_to 'New', new_count_path %>\n</body>\n</html>\n")
PYTHON_CALLS = ("import numpy as np\n\nsr = 22050\n\ndef tally(words, end=''):\n    p(end='\\n')\n"
                "    a(href='/tally', title='x')\n    for w in words:\n        yield w\n\n"
                "class Count:\n    label: str = 'fruit'\n    total: int = 0\n")
BASH = ("#!/bin/bash\nset -euo pipefail\nset -x\nfunction tally {\n  local total=0\n  for f in \"$@\"; do\n"
        "    total=$((total + $(wc -w < \"$f\")))\n  done\n  echo \"$total\"\n}\nif [ $# -eq 0 ]; then\n"
        "  echo \"usage: tally file...\"\nfi\ntally \"$@\"\n")
TCL = ("#!/usr/bin/env tclsh\nset total 0\nforeach file $argv {\n    set f [open $file]\n"
       "    set words [llength [split [read $f]]]\n    incr total $words\n    close $f\n}\n"
       "if {[string match \"-*\" [lindex $argv 0]]} {\n    puts \"usage\"\n}\n"
       "puts \"$total ([string length $total])\"\n")
RUST = ("use std::collections::HashMap;\n\npub type Counts = HashMap<String, u64>;\n\n"
        "pub fn totals(counts: &Counts) -> Vec<u64> {\n    counts.values().copied().collect()\n}\n\n"
        "pub fn label(name: &str) -> String {\n    name.to_string()\n}\n")
CLOJURE = ("(ns tally.core\n  (:require [clojure.string :as str]))\n\n(defn tally [words]\n  (frequencies words))\n\n"
           "(defn report [counts]\n  (let [labels (keys counts)]\n    (str/join \", \" labels)))\n\n"
           "(def state (atom {}))\n(swap! state assoc :fruit 3)\n(println @state (.toUpperCase \"done\"))\n")
LUA = ("local M = {}\n\nlocal counts = {}\n\nfunction M.add(label)\n  counts[label] = (counts[label] or 0) + 1\n"
       "  return counts[label]\nend\n\nlocal function total()\n  local sum = 0\n  for _, n in pairs(counts) do\n"
       "    sum = sum + n\n  end\n  return sum\nend\n\nfunction M:report()\n  print(self.name, total())\nend\n\n"
       "return M\n")
C_SOURCE = ("#include <stdio.h>\n#include <stdlib.h>\n\nstruct count { int total; struct count *next; };\n\n"
            "/* we call free() on each count; post the total when done */\nint tally(struct count *c)\n{\n"
            "    int total = 0, step = 1;\n    for (; c; c = c->next)\n        total += c->total * step;\n"
            "    printf(\"%d\\n\", total);\n    return total;\n}\n")
SMALI = (".class public Lcom/example/Tally;\n.super Ljava/lang/Object;\n.source \"Tally.java\"\n\n"
         ".method public constructor <init>()V\n    .registers 1\n"
         "    invoke-direct {p0}, Ljava/lang/Object;-><init>()V\n"
         "    return-void\n.end method\n")
PHP = ("<?php\nnamespace Tally;\n\nclass Counter\n{\n    private array $counts = [];\n\n"
       "    public function add(string $label): int\n    {\n"
       "        $this->counts[$label] = ($this->counts[$label] ?? 0) + 1;\n"
       "        return $this->counts[$label];\n    }\n}\n")
JAVASCRIPT = ("let total = 0;\nvar a, b;\nconst labels = ['fruit', 'pear'];\n\nexport {\n  total,\n  labels,\n};\n\n"
              "export function add(label) {\n  let count = 1;\n  total += count;\n  return total;\n}\n")
TYPESCRIPT = ("const label: string = 'fruit';\nconst total: number = 3;\n\nexport {\n  label,\n  total,\n};\n\n"
              "type Count = {\n  label: string\n  total: number\n}\n\nfunction add(count: Count): number {\n"
              "  return count.total + 1\n}\n")
PROLOG = (":- module(tally, [count/2]).\n:- use_module(library(lists)).\n:- dynamic total/2.\n\n"
          "count(Label, Total) :-\n    (   total(Label, Old) -> Total is Old + 1\n    ;   Total = 1\n    ).\n")
CPP = ("#include <atomic>\n#include <string>\n\nnamespace tally {\nstd::atomic<int> total{0};\n\n"
       "int Counter::add(const std::string& label) {\n    ::close(fd_);\n    return ++total;\n}\n"
       "}  // namespace tally\n")
PASCAL = ("program Tally;\nvar\n  total: Integer;\nbegin\n  total := 0;\n  while total < 10 do\n  begin\n"
          "    total := total + 1;\n  end;\n  WriteLn(total);\nend.\n")
STANDARD_ML = ("fun tally [] = 0\n  | tally (x :: xs) = x + tally xs\n\n"
               "fun label n = case n of 0 => \"none\" | _ => \"some\"\n\n"
               "datatype count = Fruit of int | Pear of int\nfun total (Fruit n) = n\n  | total (Pear n) = n\n")
HASKELL = ("module Tally where\n\nimport qualified Data.Map as Map\n\nclass Countable a where\n  count :: a -> Int\n\n"
           "instance Countable [b] where\n  count = length\n\ntotal :: [Int] -> Int\ntotal = sum\n")
KOTLIN = ("package tally\n\nfun square(x: Int) = x * x\n\nfun main() {\n    val counts = mapOf(\"fruit\" to 3)\n"
          "    for ((label, total) in counts) println(\"$label $total\")\n}\n")
ADA = ("with Ada.Text_IO; use Ada.Text_IO;\n\npackage body Tally is\n   procedure Add (Total : in out Integer) is\n"
       "   begin\n      Total := Total + 1;\n   end Add;\nend Tally;\n")
SQL = ("SELECT c.label, COUNT(*) AS total\nFROM counts c\nWHERE c.total > 2\n  AND MATCH (c.label) AGAINST ('fruit')\n"
       "GROUP BY c.label;\n\nCREATE FUNCTION total_of(l TEXT) RETURNS INT\nBEGIN\n"
       "  RETURN (SELECT SUM(total) FROM counts);\nEND;\n")
POWERSHELL = ("Get-ChildItem *.txt |\n    Where-Object { $_.Length -gt 0 } |\n    ForEach-Object { Get-Content $_ }\n"
              "Get-Service\n    | where {$_.Status -eq \"Running\"}\n    | select Name\n")
MARKDOWN_TABLE = ("# Tally\n\n| where | what |\n|-------|------|\n| here  | fruit |\n| there | pear |\n\n"
                  "The counts are kept per label.\n")
EBUILD = ("EAPI=8\n\ninherit autotools\n\nDESCRIPTION=\"Count words by label\"\n"
          "SRC_URI=\"https://example.org/${P}.tar.gz\"\n"
          "LICENSE=\"MIT\"\nSLOT=\"0\"\n\nsrc_install() {\n\temake DESTDIR=\"${D}\" install\n"
          "\tdodoc README\n\tinsinto /etc/${PN}\n}\n")
PERL_REQUIRE = ("require \"tally.pl\";\nuse strict;\n\nif (exists $counts{fruit}) {\n    keep();\n}\n"
                "print \"done\\n\";\n")
OCAML = ("module Counts = Map.Make (String)\n\nlet add label counts =\n"
         "  let total = try Counts.find label counts with Not_found -> 0 in\n"
         "  Counts.add label (total + 1) counts\n\nlet () = print_endline \"tally\"\n")
VERILOG = ("module tally;\n  reg [7:0] total;\n  initial begin\n    total = 0;\n    $display(\"%d\", total);\n  end\n"
           "endmodule\n")
SOLIDITY = ("// SPDX-License-Identifier: MIT\npragma solidity ^0.8.0;\n\ncontract Tally {\n"
            "    event Counted(string label, uint256 total);\n    mapping(string => uint256) public counts;\n\n"
            "    function count(string memory label) external returns (uint256) {\n        counts[label] += 1;\n"
            "        emit Counted(label, counts[label]);\n        return counts[label];\n    }\n}\n")
ASCIIDOC = ("= Tally\nAda Lovelace\n:toc:\n\n== Counting\n\nThe tally counts words by label.\n\n"
            "[source,python]\n----\nprint(len(words))\n----\n")
OBJECTIVE_C = ("#import \"Tally.h\"\n#import <Foundation/Foundation.h>\n\n@implementation Tally\n"
               "- (NSInteger)total {\n    return [self.counts count];\n}\n@end\n")
MARKDOWN = ("# Tally\n\n## Labels\n\nSee [the manual](https://example.org) and {{ page.title }}.\n\n"
            "| label | words |\n|-------|-------|\n| fruit | 3 |\n")

COFFEESCRIPT = ("fs = require 'fs'\n\nlabelOf = (filePath) ->\n  filePath.toLowerCase()\n\n"
                "tally = (words) => words.length\n\nfor n in [1..3]\n  console.log \"tally-#{n}.txt\"\n")
RUBY = ("source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\n\nclass Count < ApplicationRecord\n  def bump!\n"
        "    self.total += 1\n    save!\n  end\nend\n\ncount = Count.new\ncount.bump!\ncount.reload.save!\n")
JAVA_LAMBDA = ("import java.util.List;\n\nclass Tally {\n    int total(List<Integer> counts) {\n"
               "        return counts.stream().reduce(0, (a, b) -> a + b);\n    }\n}\n")
HTML_COMMENTS = ("<!DOCTYPE html>\n<html>\n<!-- counts (by label) -->\n<body>\n<!-- tally(words) -->\n"
                 "<p>No counts yet.</p>\n</body>\n</html>\n")
GO_AND_SWIFT = ("for label, total := range counts {\n\tfmt.Println(label, total)\n}\n\n"
                "// Swift\nfor (label, total) in counts {\n    print(label, total)\n}\nfor word in words {\n"
                "    print(word)\n}\n")

LUA_FUNCTIONS = ("local counts, total;\nlocal add = function(label)\n  counts[label] = (counts[label] or 0) + 1\n"
                 "end\n\nfor label, n in pairs(counts) do\n  print(label, n)\nend\n")
CSS_FORMS = ("/* the default look */\nbody {\n  margin: 0;\n}\n\ninput.form.wide {\n  width: 100%;\n}\n\n"
             "main {\n  display: grid;\n}\n")
SCALA = ("import scala.concurrent.Future\n\nobject Tally {\n  val total: Int = 0\n  var step: Long = 1L\n\n"
         "  def count(words: Seq[String]): Int = {\n    words.size\n  }\n\n  def report(total: Int) {\n"
         "    println(total)\n  }\n}\n")
DAFNY = ("method Total(counts: array<int>) returns (r: int)\n  requires counts.Length > 0\n  ensures r >= 0\n{\n"
         "  r := 0;\n}\n\nfunction Sum(xs: seq<int>): int\n{\n  if |xs| == 0 then 0 else xs[0] + Sum(xs[1..])\n}\n")
JS_FUNCTIONS = ("function total(counts)\n{\n  return counts.reduce((a, b) => a + b, 0);\n}\n\n"
                "function label(name)\n{\n  return name.toLowerCase();\n}\n")
MATPLOTLIB = ("import matplotlib.pyplot as plt\n\nfig, ax = plt.subplots()\nax.plot([1, 2, 3], label=\"$x^2$\")\n"
              "ax.label(\"$y=x^2$\")\nax.draw(fig.canvas.get_renderer())\nplt.savefig(\"tally.png\")\n")
MARKDOWN_NEWS = ("# tally 1.2\n\n* `tally()` now reads every file it is given (#12). This\n"
                 "  ensures that counts always use the same labels.\n* `skip_empty()` skips files if you're counting in a\n"
                 "  where nothing was written (#15).\n")
CPP_STRING = ("#include <string>\n#include <vector>\n\nstd::string label(const std::vector<std::string>& words)\n{\n"
              "    return words.empty() ? std::string() : words.front();\n}\n")

NEGATIVES = [SCSS, YAML_THEME, PERL_POD, ERB, PYTHON_CALLS, BASH, TCL, RUST, CLOJURE, LUA, C_SOURCE, SMALI, PHP,
             JAVASCRIPT, TYPESCRIPT, PROLOG, CPP, PASCAL, STANDARD_ML, HASKELL, KOTLIN, ADA, SQL, POWERSHELL,
             MARKDOWN_TABLE, EBUILD, PERL_REQUIRE, OCAML, VERILOG, SOLIDITY, ASCIIDOC, OBJECTIVE_C, MARKDOWN,
             COFFEESCRIPT, RUBY, JAVA_LAMBDA, HTML_COMMENTS, GO_AND_SWIFT, LUA_FUNCTIONS, CSS_FORMS, SCALA, DAFNY,
             JS_FUNCTIONS, MATPLOTLIB, CPP_STRING, MARKDOWN_NEWS]


@pytest.mark.parametrize("text", NEGATIVES)
def test_near_languages_that_write_a_few_of_the_same_words_are_not_claimed(text):
    # SCSS and a YAML theme (Sass), Perl's documentation, packages and dereferences (Sass, Janet, Tcsh,
    # Sieve), ERB (Haml), Python's calls and annotations (Pug, Slim, Vyper, Csound), Bash and Tcl (fish),
    # Rust (Gleam), Clojure (Hy, Janet), Lua (Luau, Jsonnet), C and C++ (nesC, SourcePawn, Logtalk,
    # Promela), Smali (Jasmin), PHP and JavaScript (Zephir), Prolog (Logtalk), Pascal (Lean), Standard ML
    # and Haskell (Lean 4), Kotlin (Isabelle, Alloy), Ada (Modelica), SQL (Cypher), PowerShell and a
    # Markdown table (Kusto), an ebuild (BitBake), OCaml (Augeas), TypeScript, JavaScript's exports,
    # Verilog and Solidity (Zeek), AsciiDoc and Objective-C (Typst), Markdown (wikitext), CoffeeScript,
    # Ruby's `save!` and `~>`, Java's lambdas and HTML comments (LiveScript), Go's and Swift's loops (Zephir), Lua's
    # functions (GAP), CSS (Rego), Scala (X10), Dafny and JavaScript (Whiley), matplotlib (Asymptote), C++ (Pawn),
    # a changelog's wrapped sentences that start with "ensures" and "where" (Whiley)
    assert signatures.by_signature(text) is None


def test_every_match_of_a_form_holds_one_of_its_literals():
    # a form is looked for only where one of its literals occurs
    tables = {**signatures_markup.SIGNATURES, **signatures_code.SIGNATURES, **signatures_specs.SIGNATURES}
    matched, kinds = forms_hold_their_literals(tables, [text for text, _ in POSITIVES] + NEGATIVES)
    assert matched >= 0.9 * kinds   # most forms occur in the texts above, so the check reads them


def test_each_language_is_a_pygments_name_and_named_once():
    names = set(language.registry().by_alias.values())
    tables = [signatures_markup.SIGNATURES, signatures_code.SIGNATURES, signatures_specs.SIGNATURES,
              signatures_general.SIGNATURES, signatures_domain.SIGNATURES]
    assert all(set(table) <= names for table in tables)
    assert sum(map(len, tables)) + len(signatures._OWN) == len(signatures.SIGNATURES)
