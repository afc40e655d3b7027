"""vla-eval's own LeRobot model server, run unchanged on lerobot 0.4 (Python 3.11).

vla-eval 0.8 ships ``vla_eval/model_servers/lerobot.py`` for lerobot 0.6 (Python >= 3.12),
which exports ``get_policy_class`` and ``make_pre_post_processors`` from
``lerobot.policies``; lerobot 0.4.4, the newest release on Python 3.11 (rsb_mj's
``lerobot-policy`` extra), has the same two functions, with the same signatures, in
``lerobot.policies.factory`` only. This launcher adds the two names to
``lerobot.policies`` when they are missing and then runs vla-eval's server module as
``__main__``: every other line that loads the checkpoint, maps cameras, runs the pre- and
post-processors and buffers the action chunk is vla-eval's and lerobot's own. Nothing
changes under lerobot 0.6, where the names are already there.

    python -m rsb_mj.integrations.vla_eval_lerobot \\
        --config rsb_mj/integrations/configs/servers/lerobot_aloha.yaml \\
        --args.checkpoint outputs/train/RUN/checkpoints/last/pretrained_model \\
        --args.policy_type act --args.device cpu --port 8000

(every argument is vla-eval's ``run_server``'s; see the shipped server config).
"""

from __future__ import annotations

import runpy
from pathlib import Path

#: vla-eval's LeRobot model server module.
SERVER_MODULE = "vla_eval.model_servers.lerobot"
#: The shipped server config (image keys of the RSB benchmark, chunking).
SERVER_CONFIG = Path(__file__).parent / "configs" / "servers" / "lerobot_aloha.yaml"


def alias_lerobot_policy_names() -> list[str]:
    """Make ``from lerobot.policies import get_policy_class, make_pre_post_processors``
    work on lerobot 0.4; returns the names it added (none on lerobot >= 0.6)."""
    # heavy: lerobot and torch (their own venv)
    import lerobot.policies as policies
    from lerobot.policies import factory

    added = []
    for name in ("get_policy_class", "make_pre_post_processors"):
        if not hasattr(policies, name):
            setattr(policies, name, getattr(factory, name))
            added.append(name)
    return added


def main() -> None:  # pragma: no cover - a server process
    """Alias the names, then run vla-eval's LeRobot server (its own ``__main__``)."""
    alias_lerobot_policy_names()
    runpy.run_module(SERVER_MODULE, run_name="__main__", alter_sys=True)


if __name__ == "__main__":  # pragma: no cover
    main()
