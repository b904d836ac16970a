"""Readers of what users paste: gpudoctor facts and reports (``report``) and PyTorch collect_env text (``collect_env``)."""
