"""The evaluation harness: scenario files played through the real agent turn with memory off and on, the
figures simulated or played beside them, and the report that sets each beside the article's. The command
``eval`` (``make eval``) parses its options and calls ``harness``; which module holds what, and what every
figure means: docs/eval.md.
"""
