"""Shared constants of the model tests."""

from __future__ import annotations

LLAMA3_SCALING = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 32}

CORPUS = [
    "def add(a, b):\n    return a + b\n",
    "import os\nprint(os.getcwd())\n",
    "The quick brown fox jumps over the lazy dog.",
    "Grüße aus Köln — naïve café, 日本語のテキスト, emoji 🎉🚀",
    "for i in range(10):\n\tif i % 2 == 0:\n\t\tcontinue\n",
] * 40
