"""Languages no content model names, each by its own forms (quarry.snapshot.signatures): every
text here is written for these tests from the language's documentation, and each near language's
file that writes a few of the same words stays what it is."""

import pytest
from signature_checks import forms_hold_their_literals

from quarry.snapshot import language, signatures

LLVM = ("; ModuleID = 'tally.c'\nsource_filename = \"tally.c\"\n"
        "target datalayout = \"e-m:e-i64:64-f80:128-n8:16:32:64-S128\"\ntarget triple = \"x86_64-pc-linux-gnu\"\n\n"
        "@total = dso_local global i32 0, align 4\n\n"
        "define dso_local i32 @add(i32 noundef %a, i32 noundef %b) #0 {\nentry:\n  %sum = add nsw i32 %a, %b\n"
        "  ret i32 %sum\n}\n\ndeclare i32 @printf(ptr noundef, ...) #1\n\nattributes #0 = { noinline nounwind }\n"
        "\n!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"wchar_size\", i32 4}\n")
WEBASSEMBLY = ('(module\n  (import "env" "log" (func $log (param i32)))\n  (memory 1)\n'
               '  (func $add (param $a i32) (param $b i32) (result i32)\n    local.get $a\n    local.get $b\n'
               '    i32.add)\n  (export "add" (func $add))\n)\n')
GLSL = ("#version 330 core\nlayout (location = 0) in vec3 position;\nlayout (location = 1) in vec2 uv;\n\n"
        "uniform mat4 model_view;\nout vec2 tex_coord;\n\nvoid main()\n{\n"
        "    gl_Position = model_view * vec4(position, 1.0);\n    tex_coord = uv;\n}\n")
THRIFT = ('namespace py tally.api\nnamespace java org.example.tally\n\ninclude "shared.thrift"\n\n'
          'struct Count {\n  1: required string label,\n  2: optional i64 total = 0,\n  3: list<string> tags\n}\n\n'
          'exception NotFound {\n  1: string label\n}\n\nservice Tally {\n'
          '  Count get(1: string label) throws (1: NotFound missing)\n}\n')
GLSL_ES = ("precision mediump float;\nvarying vec2 v_uv;\nuniform sampler2D image;\n\nvoid main() {\n"
           "  gl_FragColor = texture2D(image, v_uv * vec2(1.0, -1.0));\n}\n")
GRAPHQL = ("type Query {\n  tally(label: String!): Tally\n  tallies(first: Int): [Tally!]!\n}\n\n"
           "type Tally {\n  label: String!\n  total: Int!\n  tags: [String!]\n}\n\n"
           "input TallyInput {\n  label: String!\n}\n\nschema {\n  query: Query\n}\n")
GRAPHQL_QUERY = ("query TallyByLabel($label: String!) {\n  tally(label: $label) {\n    ...TallyFields\n  }\n}\n\n"
                 "fragment TallyFields on Tally {\n  label\n  total\n}\n")
PKG_CONFIG = ("prefix=/usr\nexec_prefix=${prefix}\nlibdir=${exec_prefix}/lib\nincludedir=${prefix}/include\n\n"
              "Name: tally\nDescription: Counting words by label\nVersion: 1.4.2\nRequires.private: zlib\n"
              "Libs: -L${libdir} -ltally\nCflags: -I${includedir}/tally\n")
KCONFIG = ('menu "Tally support"\n\nconfig TALLY\n\ttristate "Count words by label"\n\tdepends on NET\n'
           '\tselect CRC32\n\thelp\n\t  Say Y to count words by label.\n\nconfig TALLY_DEBUG\n\tbool "Debug output"\n'
           '\tdepends on TALLY\n\tdefault n\n\nendmenu\n')
NGINX = ("server {\n    listen 80;\n    server_name tally.example.org;\n    root /srv/tally;\n\n"
         "    location / {\n        try_files $uri $uri/ =404;\n    }\n\n    location ~ \\.php$ {\n"
         "        include snippets/fastcgi-php.conf;\n        fastcgi_pass unix:/run/php/php-fpm.sock;\n    }\n\n"
         "    location /api/ {\n"
         "        proxy_pass http://127.0.0.1:8000;\n        proxy_set_header Host $host;\n    }\n}\n")
PUPPET = ("class tally (\n  String $label = 'words',\n) {\n  package { 'tally':\n    ensure => installed,\n  }\n\n"
          "  file { '/etc/tally.conf':\n    ensure  => file,\n    content => \"label=${label}\\n\",\n"
          "    require => Package['tally'],\n    notify  => Service['tally'],\n  }\n\n"
          "  service { 'tally':\n    ensure => running,\n  }\n}\n")
PUPPET_NODES = ("node 'tally.example.org' {\n  include tally::server\n}\n\n"
                "define tally::label (\n  $color = 'red',\n) {\n"
                "  file { \"/etc/tally/${title}\":\n    ensure => file,\n  }\n}\n\n"
                "Package['tally'] -> Service['tally']\n")
NIX = ("{ lib, stdenv, fetchurl, zlib }:\n\nstdenv.mkDerivation rec {\n  pname = \"tally\";\n  version = \"1.4.2\";\n\n"
       "  src = fetchurl {\n    url = \"https://example.org/tally-${version}.tar.gz\";\n"
       "    hash = \"sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\";\n  };\n\n  buildInputs = [ zlib ];\n\n"
       "  meta = with lib; {\n    description = \"Count words by label\";\n    license = licenses.mit;\n  };\n}\n")
NIX_SHELL = ("with import <nixpkgs> {};\n\nmkShell {\n  inherit (pkgs) zlib;\n  buildInputs = [ pkgs.zlib ];\n"
             "  shellHook = ''\n    export TALLY_LIB=${pkgs.zlib}/lib\n  '';\n}\n")
DEVICETREE = ('/dts-v1/;\n#include <dt-bindings/gpio/gpio.h>\n\n/ {\n\tcompatible = "example,tally-board";\n'
              '\t#address-cells = <1>;\n\t#size-cells = <1>;\n\n\tcounter@40000000 {\n'
              '\t\tcompatible = "example,tally";\n\t\treg = <0x40000000 0x1000>;\n\t\tstatus = "okay";\n\t};\n};\n\n'
              '&uart0 {\n\tstatus = "disabled";\n};\n')
ORG = ("#+TITLE: Tally notes\n#+AUTHOR: Ada\n#+STARTUP: overview\n\n* TODO Count the weekly words\n"
       "  SCHEDULED: <2026-12-07 Mon>\n  :PROPERTIES:\n  :EFFORT: 1h\n  :END:\n\n** Example\n"
       "See [[https://example.org/tally][the tally site]].\n\n#+BEGIN_SRC python\nprint(len(words))\n#+END_SRC\n")
GHERKIN = ("Feature: Counting words\n  Counts are kept per label.\n\n  Background:\n    Given an empty tally\n\n"
           "  Scenario Outline: one word\n    When I count \"<word>\"\n    Then the total is 1\n"
           "    And the label is \"<label>\"\n\n"
           "    Examples:\n      | word  | label |\n      | apple | fruit |\n")
LILYPOND = ('\\version "2.24.0"\n\\header {\n  title = "Tally"\n}\n\nmelody = \\relative c\' {\n'
            '  \\clef treble\n  \\key g \\major\n  \\time 3/4\n  g4 a b | c2. |\n}\n\n'
            '\\score {\n  \\new Staff \\melody\n  \\layout { }\n}\n')
GNUPLOT = ("set terminal pngcairo size 800,600\nset output 'tally.png'\nset xlabel 'week'\nset ylabel 'words'\n"
           "set grid\nunset key\nplot 'tally.dat' using 1:2 with lines title 'words'\n")


HLSL = ("cbuffer Frame : register(b0)\n{\n    float4x4 view_projection;\n};\n\nTexture2D albedo : register(t0);\n"
        "SamplerState linear_sampler : register(s0);\n\nstruct PixelIn\n{\n    float4 position : SV_Position;\n"
        "    float2 uv : TEXCOORD0;\n};\n\nfloat4 main(PixelIn input) : SV_Target\n{\n"
        "    return albedo.Sample(linear_sampler, input.uv);\n}\n\nRWTexture2D<float4> output : register(u0);\n\n"
        "[numthreads(8, 8, 1)]\nvoid clear(uint3 id : SV_DispatchThreadID)\n{\n    output[id.xy] = 0;\n}\n")
WGSL = ("struct Frame {\n  view_projection: mat4x4<f32>,\n};\n\n@group(0) @binding(0) var<uniform> frame: Frame;\n\n"
        "@vertex\nfn vs_main(@location(0) position: vec3<f32>) -> @builtin(position) vec4<f32> {\n"
        "  return frame.view_projection * vec4<f32>(position, 1.0);\n}\n")
GDSCRIPT = ("extends Node2D\n\nsignal counted(total)\n\n@export var label: String = \"words\"\nvar total := 0\n\n"
            "func _ready() -> void:\n\tcount(\"apple\")\n\nfunc count(word: String) -> void:\n\ttotal += 1\n"
            "\temit_signal(\"counted\", total)\n")
ROBOT = ("*** Settings ***\nLibrary           Collections\nResource          tally_keywords.resource\n\n"
         "*** Variables ***\n${LABEL}          fruit\n\n*** Test Cases ***\nCount One Word\n"
         "    [Documentation]    One word gives a total of one.\n    ${total}=    Count Words    apple\n"
         "    Should Be Equal As Integers    ${total}    1\n")
CAPNP = ("@0xbf5147cbbecf40c1;\n\nusing Cxx = import \"/capnp/c++.capnp\";\n$Cxx.namespace(\"tally\");\n\n"
         "struct Count {\n  label @0 :Text;\n  total @1 :UInt64;\n  tags @2 :List(Text);\n}\n\n"
         "interface Tally {\n  get @0 (label :Text) -> (count :Count);\n}\n")
SMITHY = ("$version: \"2\"\n\nnamespace example.tally\n\nuse aws.protocols#restJson1\n\nservice Tally {\n"
          "    version: \"2026-12-07\"\n"
          "    operations: [GetCount]\n}\n\n@readonly\n@http(method: \"GET\", uri: \"/counts/{label}\")\n"
          "operation GetCount {\n    input := {\n        @required\n        @httpLabel\n        label: String\n    }\n"
          "    output := {\n        total: Long\n    }\n}\n")
NSIS = ("!include \"MUI2.nsh\"\n\nName \"Tally\"\nOutFile \"tally-setup.exe\"\nInstallDir \"$PROGRAMFILES\\Tally\"\n"
        "RequestExecutionLevel admin\n\nSection \"Install\"\n  SetOutPath \"$INSTDIR\"\n  File \"tally.exe\"\n"
        "  WriteUninstaller \"$INSTDIR\\uninstall.exe\"\nSectionEnd\n\nFunction .onInit\n  StrCpy $0 \"\"\n"
        "FunctionEnd\n")
REGISTRY = ("Windows Registry Editor Version 5.00\n\n[HKEY_CURRENT_USER\\Software\\Tally]\n\"Label\"=\"fruit\"\n"
            "\"Total\"=dword:00000003\n\n[-HKEY_CURRENT_USER\\Software\\Tally\\Cache]\n")
XQUERY_MODULE = ("module namespace t = \"http://example.org/tally\";\n\n"
                 "import module namespace labels = \"http://example.org/labels\" at \"labels.xqm\";\n\n"
                 "declare function t:label($count as element()) as xs:string {\n  labels:normalise($count/@label)\n"
                 "};\n")
XQUERY = ("xquery version \"3.1\";\n\ndeclare namespace t = \"http://example.org/tally\";\n\n"
          "declare function local:total($counts as element(t:count)*) as xs:integer {\n"
          "  sum(for $c in $counts return xs:integer($c/@total))\n};\n\n"
          "let $counts := doc(\"tally.xml\")//t:count\nreturn local:total($counts)\n")
TURTLE = ("@base <http://example.org/> .\n@prefix ex: <http://example.org/tally#> .\n"
          "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n\n"
          "ex:apple a ex:Count ;\n    ex:label \"fruit\"@en ;\n    ex:total \"3\"^^xsd:integer .\n")
SPARQL = ("PREFIX ex: <http://example.org/tally#>\n\nSELECT ?label ?total\nWHERE {\n  ?count a ex:Count ;\n"
          "         ex:label ?label ;\n         ex:total ?total .\n  FILTER (?total > 2)\n}\nORDER BY DESC(?total)\n")
ANTLR = ("grammar Tally;\n\noptions { caseInsensitive = true; }\n\ncounts : count+ EOF ;\n"
         "count  : LABEL ':' NUMBER ;\n\nLABEL  : [a-z]+ ;\n"
         "NUMBER : DIGIT+ ;\nfragment DIGIT : [0-9] ;\nWS     : [ \\t\\r\\n]+ -> skip ;\n")
HTTP = ("POST /counts HTTP/1.1\nHost: tally.example.org\nContent-Type: application/json\nContent-Length: 29\n\n"
        "{\"label\": \"fruit\", \"total\": 3}\n")
XORG = ("Section \"Screen\"\n    Identifier \"Screen0\"\n    SubSection \"Display\"\n        Depth 24\n"
        "    EndSubSection\nEndSection\n\nSection \"InputClass\"\n    Identifier \"tally touchpad\"\n"
        "    MatchIsTouchpad \"on\"\n"
        "    Driver \"libinput\"\n    Option \"Tapping\" \"on\"\nEndSection\n\nSection \"Device\"\n"
        "    Identifier \"Card0\"\n    Driver \"modesetting\"\nEndSection\n")
OPENSCAD = ("use <tally_digits.scad>\n$fn = 64;\n\nmodule counter(height = 10) {\n    difference() {\n"
            "        cylinder(h = height, r = 8);\n"
            "        translate([0, 0, 2]) cylinder(h = height, r = 6);\n    }\n"
            "    linear_extrude(height = 1) digits(3);\n}\n\n"
            "counter();\n")
YANG = ("module tally {\n  yang-version 1.1;\n  namespace \"urn:example:tally\";\n  prefix t;\n\n  container counts {\n"
        "    list count {\n      key \"label\";\n      leaf label {\n        type string;\n      }\n"
        "      leaf total {\n"
        "        type uint64;\n      }\n    }\n  }\n}\n")
ASN1 = ("Tally DEFINITIONS AUTOMATIC TAGS ::= BEGIN\n\nIMPORTS Label FROM Labels;\n\nCount ::= SEQUENCE {\n"
        "    label   UTF8String,\n"
        "    total   INTEGER (0..MAX),\n    tags    SEQUENCE OF UTF8String OPTIONAL\n}\n\nEND\n")
POVRAY = ("#include \"colors.inc\"\n#declare Radius = 1;\n\ncamera {\n  location <0, 2, -6>\n  look_at <0, 1, 0>\n}\n\n"
          "light_source { <4, 6, -4> color White }\n\nsphere {\n  <0, 1, 0>, 1\n  pigment { color Red }\n"
          "  finish { specular 0.4 }\n}\n")

IDRIS = ("module Tally\n\n%default total\n\n||| The words counted under one label.\npublic export\n"
         "data Count : Type where\n  MkCount : (label : String) -> (total : Nat) -> Count\n\n"
         "export\nadd : Count -> Nat -> Count\nadd (MkCount l t) n = MkCount l (t + n)\n")
AGDA = ("{-# OPTIONS --safe #-}\nmodule Tally where\n\nopen import Data.Nat using (ℕ; zero; suc; _+_)\n\n"
        "data Count : Set where\n  count : ℕ → Count\n\ntotal : Count → ℕ\ntotal (count n) = n\n\n"
        "postulate\n  label : Count → ℕ\n")
PURESCRIPT = ("module Tally where\n\nimport Prelude\n\nimport Data.Array (length)\nimport Effect (Effect)\n"
              "import Effect.Console (logShow)\n\nforeign import now :: Effect Number\n\n"
              "count :: Array String -> Int\ncount = length\n\n"
              "main :: Effect Unit\nmain = do\n  logShow (count [\"apple\", \"pear\"])\n  pure unit\n")
LIQUID = ("---\nlayout: default\ntitle: Tally\n---\n{% assign total = site.counts | size %}\n"
          "<h1>{{ page.title }}</h1>\n{% unless total == 0 %}\n"
          "<p>{{ total }} counts since {{ site.time | date: \"%Y\" }}</p>\n"
          "{% endunless %}\n")
LESS = ("@accent: #c00;\n@gap: 4px;\n\n.bordered(@width: 1px) {\n  border: @width solid @accent;\n}\n\n"
        ".nav {\n  padding: @gap * 2;\n  .bordered(2px);\n  &:hover { color: darken(@accent, 10%); }\n}\n\n"
        "@import (reference) \"base.less\";\n.wide(@w) when (@w > 10) { width: @w; }\n"
        ".button:extend(.nav) { filter: ~\"ms:alwaysHasItsOwnSyntax\"; }\n")
STAN = ("data {\n  int<lower=0> N;\n  vector[N] y;\n}\nparameters {\n  real mu;\n  real<lower=0> sigma;\n}\n"
        "model {\n  mu ~ normal(0, 10);\n  sigma ~ cauchy(0, 5);\n  y ~ normal(mu, sigma);\n}\n")
SAS = ("libname tally '/data/tally';\n\ndata tally.counts;\n  set tally.raw;\n  where total > 0;\nrun;\n\n"
       "proc means data=tally.counts mean std;\n  var total;\n  class label;\nrun;\n\n%let cutoff = 3;\n")

VELOCITY = ("## a page of counts\n#set( $title = \"Tally\" )\n<h1>$title</h1>\n#if( $counts.isEmpty() )\n"
            "<p>No counts yet.</p>\n#else\n<ul>\n#foreach( $count in $counts )\n  <li>$count.label: $count.total</li>\n"
            "#end\n</ul>\n#end\n#macro( row $label )<tr><td>$label</td></tr>#end\n")
SMARTY = ("{include file=\"header.tpl\" title=\"Tally\"}\n{assign var=total value=0}\n<ul>\n"
          "{foreach from=$counts item=count}\n  <li>{$count.label|escape}: {$count.total}</li>\n{/foreach}\n</ul>\n"
          "{if $counts|@count == 0}<p>No counts yet.</p>{/if}\n{literal}<script>var empty = {};</script>{/literal}\n")
MAKO = ("<%inherit file=\"base.html\"/>\n<%def name=\"row(count)\">\n  <tr><td>${count.label | h}</td></tr>\n</%def>\n"
        "<table>\n% for count in counts:\n  ${row(count)}\n% endfor\n</table>\n"
        "% if not counts:\n<p>No counts yet.</p>\n"
        "% endif\n")

JSP = ("<%@ page contentType=\"text/html; charset=UTF-8\" pageEncoding=\"UTF-8\" %>\n"
       "<%@ taglib prefix=\"c\" uri=\"http://java.sun.com/jsp/jstl/core\" %>\n<html>\n<body>\n"
       "<jsp:include page=\"header.jsp\"/>\n<ul>\n<c:forEach var=\"count\" items=\"${requestScope.counts}\">\n"
       "  <li><c:out value=\"${count.label}\"/></li>\n</c:forEach>\n</ul>\n"
       "<% String who = request.getParameter(\"who\"); %>\n</body>\n</html>\n")
ASPX = ("<%@ Page Language=\"C#\" AutoEventWireup=\"true\" CodeBehind=\"Tally.aspx.cs\" Inherits=\"Tally.Page\" %>\n"
        "<html>\n<body>\n<form runat=\"server\">\n  <asp:Label ID=\"Total\" runat=\"server\" />\n</form>\n"
        "<% Response.Write(DateTime.Now); %>\n</body>\n</html>\n")

@pytest.mark.parametrize("text,expected", [
    (LLVM, "LLVM"), (WEBASSEMBLY, "WebAssembly"), (GLSL, "GLSL"), (GLSL_ES, "GLSL"), (THRIFT, "Thrift"),
    (GRAPHQL, "GraphQL"),
    (GRAPHQL_QUERY, "GraphQL"), (PKG_CONFIG, "PkgConfig"), (KCONFIG, "Kconfig"), (NGINX, "Nginx configuration file"),
    (PUPPET, "Puppet"), (PUPPET_NODES, "Puppet"), (NIX, "Nix"), (NIX_SHELL, "Nix"), (DEVICETREE, "Devicetree"),
    (ORG, "Org Mode"), (GHERKIN, "Gherkin"),
    (LILYPOND, "LilyPond"), (GNUPLOT, "Gnuplot"), (HLSL, "HLSL"), (WGSL, "WebGPU Shading Language"),
    (GDSCRIPT, "GDScript"), (ROBOT, "RobotFramework"), (CAPNP, "Cap'n Proto"), (SMITHY, "Smithy"), (NSIS, "NSIS"),
    (REGISTRY, "reg"), (XQUERY, "XQuery"), (XQUERY_MODULE, "XQuery"), (TURTLE, "Turtle"), (SPARQL, "SPARQL"),
    (ANTLR, "ANTLR"), (HTTP, "HTTP"),
    (XORG, "Xorg"), (OPENSCAD, "OpenSCAD"), (YANG, "YANG"), (ASN1, "ASN.1"), (POVRAY, "POVRay"), (IDRIS, "Idris"),
    (AGDA, "Agda"), (PURESCRIPT, "PureScript"), (LIQUID, "liquid"), (LESS, "LessCss"), (STAN, "Stan"), (SAS, "SAS"),
    (VELOCITY, "Velocity"), (SMARTY, "Smarty"), (MAKO, "Mako"), (JSP, "Java Server Page")])
def test_a_language_no_model_names_is_named_by_its_own_forms(text, expected):
    assert language.detect("00000007", text.encode()[:512], text) == expected


C_STRUCT = ("/* counts:\n *   1: words seen\n *   2: labels seen\n */\nstruct tally {\n    int words;\n"
            "    int labels;\n};\n\nint busy(const struct tally *t) { return t->words ? 1 : 0; }\n")
PYTHON_CLASS = ("class tally(object):\n    \"\"\"Ensure the count is kept.\"\"\"\n\n    def __init__(self):\n"
                "        self.words = {1: 'one', 2: 'two'}\n        self.plot = None\n")
TYPESCRIPT_TYPES = ("export interface Tally {\n  label: String\n  total: number\n}\n\n"
                    "export type Query = {\n  tally: Tally\n}\n")
MARKDOWN_WITH_EXAMPLES = ("# Tally's schema\n\nQuery a tally by its label:\n\n```graphql\n"
                          "query TallyByLabel($label: String!) {\n  tally(label: $label) {\n    total\n  }\n}\n```\n")
JS_SHADER = ("export default /* glsl */ `\nuniform mat4 model_view;\nvoid main() {\n"
             "  gl_Position = model_view * vec4(position, 1.0);\n}\n`;\n")
LATEX_WITH_GNUPLOT = ("\\documentclass{article}\n\\begin{document}\nTo draw the counts:\n\\begin{verbatim}\n"
                      "set terminal postscript eps\nset xlabel 'week'\nset output 'tally.eps'\n\\end{verbatim}\n"
                      "\\end{document}\n")
# a package's description (reStructuredText) showing the template language it ships
PACKAGE_DESCRIPTION = ("Metadata-Version: 2.1\nName: tally-templates\nVersion: 1.0\n\n=====\nTally\n=====\n\n"
                       "Pages are written as templates::\n\n    <%inherit file=\"base.html\"/>\n"
                       "    <%def name=\"row(count)\">${count.label | h}</%def>\n    % for count in counts:\n"
                       "        ${row(count)}\n    % endfor\n\nSee the documentation for more.\n")
SQL_QUERY = ("SELECT * FROM counts\nWHERE label = 'fruit'\n  AND total > 2;\n\n"
             "SELECT label, count(*) FILTER (WHERE total > 2)\nFROM counts\nGROUP BY label;\n")
RUST_FN = ("use std::collections::HashMap;\n\nfn count(words: &[&str]) -> HashMap<&str, u64> {\n"
           "    let mut totals = HashMap::new();\n    for w in words {\n        *totals.entry(*w).or_insert(0) += 1;\n"
           "    }\n    totals\n}\n")
BNF_GRAMMAR = ("<count> ::= <label> \":\" <number>\n<label> ::= <letter> | <letter> <label>\n"
               "<number> ::= <digit> | <digit> <number>\n")
HASKELL = ("module Main\n  ( main\n  ) where\n\nimport Prelude hiding (lookup)\nimport Data.Map (Map, lookup)\n\n"
           "data Count = Count { label :: String, total :: Int }\n\nmain :: IO ()\n"
           "main = print (total (Count \"apple\" 3))\n")
DJANGO = ("{% extends \"base.html\" %}\n{% block content %}\n<h1>{{ page.title }}</h1>\n"
          "{% for c in counts %}<p>{{ c.total|default:\"none\" }}</p>{% endfor %}\n{% endblock %}\n")
PHP_STRINGS = ("<?php\n$label = 'fruit';\necho \"{$label}: {$counts[$label]}\\n\";\n"
               "foreach ($counts as $label => $total) {\n    printf(\"%s %d\\n\", $label, $total);\n}\n")
JS_TEMPLATE = ("const $list = $('#counts');\nconst row = (c) => `<li>${c.label}: ${c.total}</li>`;\n"
               "$list.html(counts.map(row).join(''));\n")
TEX_COMMENTS = ("% if the counts are empty:\n%   say so\n\\documentclass{article}\n\\begin{document}\n"
                "No counts yet.\n\\end{document}\n")
JAGS = ("model {\n  for (i in 1:N) {\n    y[i] ~ dnorm(mu, tau)\n  }\n  mu ~ dnorm(0, 0.001)\n}\n")
PERL_HASH = ("my %tally = (\n    ensure => 'present',\n    label  => 'fruit',\n);\n"
             "print join(', ', map { \"$_ => $tally{$_}\" } sort keys %tally), \"\\n\";\n")


@pytest.mark.parametrize("text", [C_STRUCT, PYTHON_CLASS, TYPESCRIPT_TYPES, MARKDOWN_WITH_EXAMPLES, JS_SHADER,
                                  LATEX_WITH_GNUPLOT, PERL_HASH, SQL_QUERY, RUST_FN, BNF_GRAMMAR, HASKELL, DJANGO,
                                  JAGS, PHP_STRINGS, JS_TEMPLATE, TEX_COMMENTS, PACKAGE_DESCRIPTION, ASPX])
def test_near_languages_that_write_a_few_of_the_same_words_are_not_claimed(text):
    # a numbered comment and a C struct (Thrift), a lower-case Python class (Puppet), TypeScript's
    # types (GraphQL), examples in Markdown and LaTeX and a shader in a JavaScript string (one kind
    # more needed in each), SQL's SELECT and FILTER (SPARQL), a Rust function (WGSL), BNF's `::=` (ASN.1),
    # Haskell (Idris, PureScript), Django's filters (Liquid), a JAGS model (Stan), PHP's `{$x}` strings
    # (Smarty), jQuery and template literals (Velocity), TeX comments (Mako's `%` lines), a
    # reStructuredText literal block's example, an ASP.NET page (JSP)
    assert signatures.by_signature(text) is None


def test_every_match_of_a_form_holds_one_of_its_literals():
    # a form is looked for only where one of its literals occurs
    texts = [value for value in globals().values() if isinstance(value, str) and "\n" in value]
    forms_hold_their_literals(signatures.SIGNATURES, texts)   # every table's forms, over these texts too
    matched, kinds = forms_hold_their_literals(signatures._OWN, texts)
    assert matched >= 0.95 * kinds   # most of this table's forms occur in the texts above, so the check reads them


def test_each_language_is_a_pygments_name():
    # the names the rest of the pipeline (filters, composition) reads
    names = set(language.registry().by_alias.values())
    assert set(signatures.SIGNATURES) <= names


LITERATE_AGDA = ("\\documentclass{article}\n\\usepackage{agda}\n\\begin{document}\nThe words counted by label.\n\n"
                 "\\begin{code}\nmodule Tally where\n\nopen import Data.Nat using (ℕ; zero; suc)\n\\end{code}\n\n"
                 "A count is a label's total:\n\n\\begin{code}\ndata Count : Set where\n  count : ℕ → Count\n"
                 "\\end{code}\n\\end{document}\n")


def test_agda_in_a_latex_document_is_literate_agda_and_a_plain_module_is_agda():
    assert signatures.by_signature(LITERATE_AGDA) == "Literate Agda"
    assert signatures.by_signature(AGDA) == "Agda"


LITERATE_AGDA_MARKDOWN = ("---\ntitle: Tally\n---\n\n```agda\nmodule Tally where\n```\n\n"
                          "The naturals we count with:\n\n"
                          "```agda\nopen import Data.Nat using (ℕ; suc)\n\ncount : ℕ → ℕ\ncount n = suc n\n```\n")
AGDA_README = ("# tally-agda\n\nCounting in Agda. Install it, then:\n\n```agda\nopen import Tally\n```\n\n"
               "and count with `count`.\n")


def test_agda_in_markdown_blocks_that_declare_the_module_is_literate_agda():
    assert language.from_content(LITERATE_AGDA_MARKDOWN.encode()) == "Literate Agda"
    assert language.from_content(AGDA_README.encode()) != "Literate Agda"

