"""The replay server of :mod:`rsb_mj.integrations.vla_eval_replay` noting the size of each
batch vla-eval's dispatch hands it, one line per ``predict_batch`` call, in the file named
by ``BATCH_SIZES_LOG`` (for the sharding test).

    python tests/integrations/batch_log_server.py --args.demo_dir DEMOS --port PORT
"""

from __future__ import annotations

import os

from rsb_mj.integrations.vla_eval_replay import DemoReplayServer


class LoggingReplayServer(DemoReplayServer):
    """:class:`DemoReplayServer` that logs its batch sizes."""

    def predict_batch(self, obs_batch, ctx_batch):
        with open(os.environ["BATCH_SIZES_LOG"], "a") as f:
            f.write(f"{len(obs_batch)}\n")
        return super().predict_batch(obs_batch, ctx_batch)


if __name__ == "__main__":
    from vla_eval.model_servers.serve import run_server

    run_server(LoggingReplayServer)
