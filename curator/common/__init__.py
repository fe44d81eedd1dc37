"""Machinery both pipelines share: boards, ranking, reading input files, writing results."""
