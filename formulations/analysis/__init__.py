"""The statistics of a comparison: TTS99 and its intervals (``stats``), the per-quantile optimal
anneal length with its two-level bootstrap (``optimal``)."""
