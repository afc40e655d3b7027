"""Adapters to other evaluation ecosystems.

- :mod:`rsb_mj.integrations.vla_eval`: the six RSB suites as a vla-eval benchmark
  (``StepBenchmark``), with configs in ``rsb_mj/integrations/configs/`` (needs the
  ``vla-eval`` extra).
- :mod:`rsb_mj.integrations.vla_eval_results`: GSR, TSR and nSG from vla-eval's result
  files (no vla-eval needed).
- :mod:`rsb_mj.integrations.vla_eval_replay`: a vla-eval model server that replays
  recorded demonstrations open loop (tests, smoke runs).
- :mod:`rsb_mj.integrations.vla_eval_lerobot`: vla-eval's own LeRobot model server, run
  unchanged on lerobot 0.4 (Python 3.11), with a server config for the RSB benchmark.
"""
