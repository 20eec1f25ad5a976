"""What decontamination compares: normalised words, licence notices, code without docstrings."""

from __future__ import annotations

import html
import json

from quarry.curation.decontaminate.overlap_text import code_only, normalize, notice_words
from quarry.curation.dedup.shingles import words

CODE = 'def greet(name):\n    """Say hello."""\n    print(f"hello {name}\\n")  # \u00e9t\u00e9\n    return name < "z"\n'


def test_pasted_shapes_normalise_to_the_same_words():
    expected = words(normalize(CODE))
    shapes = [
        json.dumps({"text": CODE}),                                    # one JSON string
        json.dumps({"dump": json.dumps({"code": CODE})}),              # a JSON string inside one
        json.dumps({"text": CODE}, ensure_ascii=True),                 # \uXXXX escapes
        f"Answer:\n```python\n{CODE}```\nDone.",                       # a markdown fence
        f"Answer:\n\n.. code-block:: python\n\n{CODE}\nDone.",         # an rst directive
        f"<pre><code>{html.escape(CODE)}</code></pre>",                # HTML entities
    ]
    for shape in shapes:
        found = words(normalize(shape))
        assert any(found[i:i + len(expected)] == expected for i in range(len(found))), shape


def test_notices_are_comment_blocks_or_paragraphs_naming_a_licence():
    text = ("# Copyright 2025 The Example Team. All rights reserved.\n#\n"
            "# Licensed under the Apache License, Version 2.0.\n"
            "import os\n\n\ndef license_path():\n    return os.sep\n\n"
            '"""\nSPDX-License-Identifier: MIT\nPermission is hereby granted.\n"""\nvalue = 1\n')
    tokens = words(text)
    masked = [b" ".join(tokens[start:end]).decode() for start, end in notice_words(text)]
    assert masked == ["copyright 2025 the example team all rights reserved licensed under the apache license "
                      "version 2 0", "spdx license identifier mit permission is hereby granted"]
    assert notice_words("def f():\n    return 'no notice here'\n") == []


def test_code_only_drops_docstrings_and_comments():
    assert words(code_only(CODE)) == words('def greet(name):\n    print(f"hello {name}\\n")\n    return name < "z"')
