"""Layerwise intent probing (Act2Answer): where in a policy the answer is represented, and
whether the action follows it.

Two halves, one data flow:

* **capture** (during ``rsb eval --features MODE``): a policy hands over named per-layer
  features (:mod:`rsb_mj.policies.features`); :mod:`rsb_mj.probing.capture` keeps the
  queries the mode asks for and :mod:`rsb_mj.probing.store` writes them, one compressed
  archive per episode, named by the episode's record. Nothing of it is scored or sent back.
* **probe** (``rsb probe RUN_DIR...``): :mod:`rsb_mj.probing.dataset` turns records and
  archives into per-layer matrices, labels and groups; :mod:`rsb_mj.probing.probe` fits
  grouped out-of-fold logistic regressions with a permutation control;
  :mod:`rsb_mj.probing.tables` writes the tables, JSON and plot; :mod:`rsb_mj.probing.run`
  ties them together.

Python API::

    from rsb_mj.probing import probe_runs
    done = probe_runs([Path("runs/net")], Path("runs/net/probe"), target="answer")
    for r in done.results:
        print(r.layer, r.accuracy, r.verdict)
"""

from rsb_mj.lazy import lazy_exports

_EXPORTS = {
    "Captured": "rsb_mj.probing.capture",
    "FeatureMode": "rsb_mj.probing.capture",
    "FeatureRecorder": "rsb_mj.probing.capture",
    "LayerResult": "rsb_mj.probing.probe",
    "ProbeSet": "rsb_mj.probing.dataset",
    "ProbeSettings": "rsb_mj.probing.probe",
    "load_features": "rsb_mj.probing.store",
    "load_probe_sets": "rsb_mj.probing.dataset",
    "probe_runs": "rsb_mj.probing.run",
    "probe_set": "rsb_mj.probing.probe",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
