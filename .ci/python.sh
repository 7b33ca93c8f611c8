#!/usr/bin/env bash
# The Python package's tests, as a user gets it: a venv, `pip install ./crates/safeplan-py`
# (the package's build backend: maturin builds the extension, the run's one release build of
# the libraries, then the native `safeplan` executable from them), then pytest against
# the installed package, with unified-planning and up-fast-downward for the engine's
# comparison tests; and the MCP server against the official MCP Python SDK.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONDONTWRITEBYTECODE=1
venv="${SAFEPLAN_VENV:-$PWD/target/ci-venv}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# (maturin: test_build_backend.py imports the package's build backend, which imports it.)
"$venv/bin/python" -m pip install -q --disable-pip-version-check "pytest>=7,<10" "hypothesis>=6,<7" "unified-planning==1.3.0" "up-fast-downward==1.0.0" "mcp==2.3.0" "inspect_ai==0.3.285" "playwright==1.65.2" "litellm[proxy]==1.108.7" "maturin>=1.7,<2" "ray[data]==2.60.0"
# Debian's Chromium for the bench report's browser test (Playwright drives it; Playwright's own
# browser download needs the internet).
if ! command -v chromium >/dev/null 2>&1; then
  (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1 || echo "could not install chromium"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps ./crates/safeplan-py
"$venv/bin/python" -c "import safeplan, up_safeplan; print('safeplan', safeplan.__version__, 'installed')"
# The MCP server (`safeplan mcp`, the binary `cargo test --workspace` built) driven by the
# official MCP Python SDK.
if [ ! -x target/debug/safeplan ]; then
  cargo build -q -p safeplan-cli
fi
# The C library, for the test that holds the C API's message and JSON against Python's
# (test_assess.py, through ctypes): the debug build `cargo test` compiled, linked as a cdylib.
cargo build -q -p safeplan-capi
# pytest exits 5 when it collects no test: that is a failure here too (set -e).
"$venv/bin/python" -m pytest -q -p no:cacheprovider crates/safeplan-py/tests crates/safeplan-mcp/tests/python crates/safeplan-llm/tests/python
