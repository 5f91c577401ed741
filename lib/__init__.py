"""rag-bias-lab: helpers for reproducing studies of how LLMs judge passages in RAG."""
import sys

# nbformat (so papermill, so the runner and the plan) imports jsonschema, which, when rfc3987-syntax is
# installed (JupyterLab's jupyter-events asks for it), compiles about 40 lark grammars at import to check
# IRI formats that no notebook schema uses: 4-10 s per process here. Marked absent, jsonschema skips
# those checkers and validates notebooks the same way (measured in docs/servers.md, "Planning a paid run").
sys.modules.setdefault("rfc3987_syntax", None)
