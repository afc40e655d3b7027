"""Image-question-answer samples for VLM cotraining (RSB Appendix E), from train episodes.

Each sample is the head-camera image of a train episode at its reset state, the episode's
instruction as the question, and the answer in words: ``"C, the cyan block"`` (the correct
option's letter and the object it maps to). The layout is LLaVA's conversation format, which
common VLM fine-tuning code reads::

    DIR/samples.jsonl     one JSON object per line:
        {"id": "RSB-General-4-train-0003",
         "image": "images/RSB-General-4-train-0003.png",
         "conversations": [{"from": "human", "value": "<image>\\n<instruction>"},
                           {"from": "gpt", "value": "C, the cyan block"}],
         "suite": ..., "split": "train", "index": 3, "seed": ..., "question_id": ...,
         "rationale": "<the episode's rationale>"}
    DIR/images/*.png      320x240 RGB head images

Only the train split is exported: eval answers never reach training data.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from rsb_mj.atomic import atomic_write_bytes, atomic_write_text
from rsb_mj.env import RsbEnv
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.rationale import object_phrase, rationale
from rsb_mj.errors import EvalError
from rsb_mj.lang.ast import Problem
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode, table_size

#: File of the samples inside the export folder.
SAMPLES_FILE = "samples.jsonl"


def answer_text(episode: Episode, problem: Problem) -> str:
    """``"C, the cyan block"``: the correct letter and the object it maps to."""
    return f"{episode.correct}, {object_phrase(episode, problem, episode.correct)}"


def _png(image: np.ndarray) -> bytes:

    ok, data = cv2.imencode(".png", np.ascontiguousarray(image[:, :, ::-1]))
    if not ok:
        raise EvalError("could not encode a PNG image")
    return data.tobytes()


def export_vqa(suite: str, out: Path, *, split: str = "train", n: int = 20, start: int = 0) -> int:
    """Write ``n`` samples of ``suite``'s train rows ``start..start+n-1`` into ``out``.

    Returns:
        The number of samples written.

    Raises:
        EvalError: for the eval split, or rows outside the frozen train table.
    """
    if split != "train":
        raise EvalError(
            f"--split {split}: VQA samples are exported from the train split only "
            "(eval answers must never reach training data); valid choices: train"
        )
    s = get_suite(suite)
    size = table_size(s.name, split)
    if n < 1 or start < 0 or start + n > size:
        raise EvalError(
            f"rows {start}..{start + n - 1} are outside the {s.name} train table "
            f"(valid: 0..{size - 1})"
        )
    (out / "images").mkdir(parents=True, exist_ok=True)
    env = RsbEnv(s.path, suite=s.name, split=split, cameras=("head",))
    lines = []
    try:
        for index in range(start, start + n):
            episode = load_episode(s.name, split, index)
            obs, _ = env.reset(options={"episode": episode})
            sample_id = f"{s.name}-{split}-{index:04d}"
            image = f"images/{sample_id}.png"
            atomic_write_bytes(out / image, _png(obs["images"]["head"]))
            sample = {
                "id": sample_id,
                "image": image,
                "conversations": [
                    {"from": "human", "value": f"<image>\n{episode.instruction}"},
                    {"from": "gpt", "value": answer_text(episode, env.problem)},
                ],
                "suite": s.name,
                "split": split,
                "index": index,
                "seed": episode.seed,
                "question_id": episode.question_id,
                "rationale": rationale(episode, env.problem),
            }
            lines.append(json.dumps(sample, sort_keys=True))
    finally:
        env.close()
    atomic_write_text(out / SAMPLES_FILE, "\n".join(lines) + "\n")
    return len(lines)
