"""MiniLM's WordPiece tokenizer, built from its plain vocabulary file.

`Tokenizer.from_file(minilm-tokenizer.json)` parses 466 KB of JSON: 40-50 ms of CPU with
the GIL held, on the critical path of a cold `memfs recall` (the model session builds
beside it without the GIL). The same tokenizer assembled from the 30,522-line vocabulary
(`minilm-vocab.txt`, the JSON's `model.vocab` in id order) and the JSON's normaliser,
pre-tokeniser, post-processor and special tokens spelled out here loads ~5x faster.
The JSON stays the reference: tests check that the vocabulary file is its vocabulary and
that both tokenizers give the same ids, masks and type ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
VOCAB_PATH = DATA / "minilm-vocab.txt"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
#: The JSON's added tokens (all special, none normalised), in id order 0, 100-103.
SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def load_tokenizer(max_tokens: int) -> Any:
    """The bert-base-uncased WordPiece tokenizer as minilm-tokenizer.json defines it,
    truncating to `max_tokens` and padding a batch to its longest text."""
    from tokenizers import AddedToken, Tokenizer
    from tokenizers.models import WordPiece
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer
    from tokenizers.processors import TemplateProcessing

    tok = Tokenizer(WordPiece.from_file(str(VOCAB_PATH), unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    tok.pre_tokenizer = BertPreTokenizer()
    tok.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                            special_tokens=[("[CLS]", 101), ("[SEP]", 102)])
    tok.add_special_tokens([AddedToken(t, single_word=False, lstrip=False, rstrip=False, normalized=False)
                            for t in SPECIAL])
    tok.enable_truncation(max_length=max_tokens)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok
