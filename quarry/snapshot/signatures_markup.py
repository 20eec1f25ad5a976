"""Markup, templates and stylesheets that neither content model names, each by the forms its own
documentation prescribes (a table of quarry.snapshot.signatures): Sass's indented syntax, Haml,
Pug, Slim, Typst and MediaWiki's wikitext.

The indented languages write what their bracketed relatives write without the brackets: a Sass
variable or property with no `;`, a Haml tag as `%tag`, a Pug tag with its attributes in
parentheses, a Slim tag with bare attributes. So SCSS, Less, CSS, HTML, ERB and Django templates
(their braces, semicolons and closing tags) do not hold these forms, nor does YAML (whose keys
are not CSS properties after a selector, nor `$` variables).
"""

from __future__ import annotations

from quarry.snapshot.dialects import forms, signed

_CSS_PROPERTY = (r"(?:color|background(?:-[a-z]+)?|margin(?:-[a-z]+)?|padding(?:-[a-z]+)?|border(?:-[a-z]+)*|"
                 r"font(?:-[a-z]+)?|width|height|max-width|min-height|display|position|top|left|right|bottom|"
                 r"float|clear|text-[a-z]+|line-height|z-index|overflow|opacity|cursor|content|list-style|"
                 r"vertical-align|white-space|box-shadow|transition|transform)")
_HTML_TAG = (r"(?:html|head|body|div|span|p|a|ul|ol|li|table|thead|tbody|tr|td|th|h[1-6]|form|input|label|section|"
             r"header|footer|nav|img|meta|link|script|style|title|button|select|option|textarea|article|aside|"
             r"main|strong|em|pre|code|small|br|hr|iframe|fieldset|legend)")

# a tag with its class or id (`nav#pagination`, `i.fa.fa-bars`): Pug's and Slim's
_TAG_WITH_CLASS = (r"^[ \t]*" + _HTML_TAG + r"(?:[.#][\w-]+)+[ \t]*$")
# a Ruby statement line, as Haml and Slim write it: a condition on one expression, or a block
_RUBY_LINE = (r"^[ \t]*-[ \t]++(?:(?:if|unless|elsif|case|when)[ \t]+!?[@\w.?!\[\]:'\"]+"
              r"(?:[ \t]*(?:==|!=|&&|\|\||<=?|>=?)[^\n]*)?|else|[^\n]*[ \t]do(?:[ \t]*\|[^|\n]*\|)?)[ \t]*$")

_SASS_FORMS = forms(
    # a variable with no `;` (a map or list opening `(` or `,` runs on: SCSS's too); not JSON Schema's
    # `$ref`, nor Perl's `$Package::NAME`
    variable=(("$",), r"^\$(?!schema\b|ref\b|id\b)[\w-]+[ \t]*:(?!:)[ \t]*[^\n;{}]*[^\n;{},(\s][ \t]*$"),
    # Perl's documentation commands (`=cut`, `=head1`) are not mixins
    mixin=(("=", "@mixin"),
           r"^(?:=(?!(?:cut|head\d|item|over|back|pod|begin|end|for|encoding)\b)|"
           r"@mixin[ \t]+)[\w-]+(?:\([^)\n]*\))?[ \t]*$"),
    include=(("+", "@include"), r"^[ \t]+(?:\+|@include[ \t]+)[\w-]+(?:\([^\n;{]*\))?[ \t]*$"),
    parent=(("&",), r"^[ \t]+&(?:[:.\[-]|[ \t]+[>+~])[^\n{};]*$"),   # Vim's `&option` is not a selector
    property=((":",), r"^[ \t]+" + _CSS_PROPERTY + r"[ \t]*:[ \t]+[^\n;{}]*[^\n;{},\s][ \t]*$"),
    control=(("@",), r"^[ \t]*@(?:if|else|each|for|while|extend|import|use|forward|function|return)[ \t][^\n{};]*$"),
)
_HAML_FORMS = forms(
    tag=(("%",), r"^[ \t]*%" + _HTML_TAG + r"(?:[.#][\w-]+)*(?:\{[^\n]*\}|\([^\n]*\))?[ \t]*(?:[=/~]|[ \t]+\S|$)"),
    attributes=(("{",), r"^[ \t]*%\w[\w.#-]*\{[ \t]*(?::[\w-]+[ \t]*=>|[\w-]+:[ \t]|\"[\w-]+\"[ \t]*=>)"),
    code=(("- ",), _RUBY_LINE),
    output=(("= ",), r"^[ \t]*(?:(?:%[\w.#-]+|[.#][\w-]+)[ \t]*)?!?=[ \t]+(?:link_to|render|yield|image_tag|"
                     r"form_for|t\(|@\w+|raw[ \t(]|simple_form_for|content_tag)"),
    doctype=(("!!!",), r"^!!!(?:[ \t]+\w+)*[ \t]*$"),
    comment=(("-#",), r"^[ \t]*-#"),
    filter=((":",), r"^[ \t]*:(?:javascript|css|ruby|markdown|plain|erb|sass|scss|escaped|preserve)[ \t]*$"),
)
_PUG_FORMS = forms(
    extends=(("extends",), r"^extends[ \t]+[\w./-]+[ \t]*$"),
    block=(("block",), r"^[ \t]*block[ \t]+(?:append[ \t]+|prepend[ \t]+)?[\w-]+[ \t]*$"),
    each=(("each ",), r"^[ \t]*each[ \t]+\w+(?:[ \t]*,[ \t]*\w+)?[ \t]+in[ \t]+\S"),
    mixin=(("mixin ", "+"), r"^(?:mixin[ \t]+[\w-]+(?:\([^)\n]*\))?|[ \t]*\+[\w-]+(?:\([^\n]*\))?)[ \t]*$"),
    comment=(("//-",), r"^[ \t]*//-"),
    dot_block=((".",), r"^[ \t]*(?:script|style|p|pre)(?:\([^\n]*\))?\.[ \t]*$"),
    attributes=(("(",), r"^[ \t]*" + _HTML_TAG + r"(?:[.#][\w-]+)*\([ \t]*[\w:@-]+[ \t]*=[ \t]*(?:'|\"|\{|\w)"
                        r"[^\n]*\)(?:[ \t]+\S[^\n]*)?$"),
    code=(("- ",), r"^[ \t]*-[ \t]+(?:var|let|const)[ \t]+\w+[ \t]*="),
    tag_with_class=((".", "#"), _TAG_WITH_CLASS),
    # a tag's text from an expression (`span=page.title`, `!=partial(...)`), a tag inside text (`#[strong x]`;
    # Rust's `#[derive(...)]` closes at once)
    buffered=(("=",), r"^[ \t]+(?:" + _HTML_TAG + r"(?:[.#][\w-]+)*!?=[^=\n ]|!=[ \t]*\w)"),
    inline_tag=(("#[",), r"#\[(?:=|!=|[a-z][\w.#-]*(?:\([^)\n]*\))?[ \t])"),
)
_SLIM_FORMS = forms(
    # a tag and bare attributes: `meta name="viewport" content="..."`
    attributes=(("=\"", "='"), r"^[ \t]*" + _HTML_TAG + r"(?:[.#][\w-]+)*(?:[ \t]+[\w:-]+=(?:\"[^\"\n]*\"|'[^'\n]*'|"
                                r"@?[\w.]+))+[ \t]*$"),
    code=(("- ",), _RUBY_LINE),
    # an expression's output: `= yield`, `== paginator.render do` (AsciiDoc's `== Title` is capitalised)
    output=(("= ",), r"^[ \t]*(?:(?:" + _HTML_TAG + r"(?:[.#][\w-]+)*|(?:[.#][\w-]+)+)[ \t]*)?==?[ \t]+"
                     r"[a-z_@][\w.@?!]*(?:[ \t(][^\n]*)?$"),
    tag_with_class=((".", "#"), _TAG_WITH_CLASS),
    html_comment=(("/!",), r"^[ \t]*/![ \t]"),
    text=(("|",), r"^[ \t]+\|[ \t]+[A-Za-z]"),
)
_TYPST_FORMS = forms(
    set_rule=(("#set",), r"^#set[ \t]+[a-z][\w.]*\("),
    show_rule=(("#show",), r"^#show\b[^\n:]*+:"),
    let=(("#let",), r"^#let[ \t]+[\w-]+[ \t]*[=(]"),
    import_=(("#import",), r"^#import[ \t]+\"(?:@preview/[\w-]+:[\d.]+|[^\"\n]+\.typ)\""),
    element=(("#",), r"^#(?:figure|table|image|align|box|block|grid|pagebreak|outline|bibliography|heading|"
                     r"lorem|v|h)\("),
    heading=(("=",), r"^=+[ \t]+[A-Z][^\n=]*$"),
)
_WIKITEXT_FORMS = forms(
    heading=(("==",), r"^(=={1,4})[ \t]*+[^=\s][^=\n]*?\1[ \t]*$"),
    link=(("[[",), r"\[\[(?:Category|File|Image|Template|Wikipedia|Help):[^\]\n]+\]\]|\[\[[^\[\]|\n]+\|[^\]\n]+\]\]"),
    template=(("{{",), r"\{\{[\w -]+\|[^}\n]*\}\}|^\{\{[\w -]+\}\}[ \t]*$"),
    table=(("{|",), r"^\{\|[^\n]*\n(?:[^\n]*\n)*?\|-"),
    external_link=(("[http",), r"\[https?://[^ \]\n]+[ \t]+[^\]\n]+\]"),
    reference=(("<ref",), r"<ref(?:[ \t]+name=[^>\n]*)?>[^<\n]*</ref>|<references[ \t]*/>"),
)

SIGNATURES = {
    "Sass": signed(("\n$", "@mixin", "@include", "\n=", "\n  +", "&:", "@extend", "@import", "@use "), _SASS_FORMS, 2),
    "Haml": signed(("\n%", "  %", "\t%", "!!!", "-#"), _HAML_FORMS, 2),
    "Pug": signed(("\nextends ", "\nblock ", "  block ", "  each ", "mixin ", "//-", "doctype html", "(class=",
                   "(href=", "(src=", "(type=", "(id=", "  !=", "#[", "\n!="), _PUG_FORMS, 2),
    "Slim": signed(("doctype html", "\n/!", "  /!", "= yield", "= render", "= link_to", "\n== ", "  == ", "- if ",
                    " do |"), _SLIM_FORMS, 3),
    "Typst": signed(("#set", "#let", "#show", "#import"), _TYPST_FORMS, 2),
    "Wikitext": signed(("[[", "{{", "==", "{|", "[http"), _WIKITEXT_FORMS, 2),
}
