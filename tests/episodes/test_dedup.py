"""Near-duplicate questions across splits (issue 9): found, dropped from train, audited."""

from rsb_mj.episodes.dedup import RUN_WORDS, DuplicateIndex, near_duplicates, normalize
from rsb_mj.episodes.sources import get_source
from rsb_mj.episodes.sources.mmlu_pro import _all
from rsb_mj.tables.audit import audit, duplicate_rows
from rsb_mj.tables.families import load_table

PASSAGE = " ".join(f"w{i}" for i in range(RUN_WORDS))


def test_normalization_and_runs():
    assert normalize("The Current, in the power-source!") == (
        "the",
        "current",
        "in",
        "the",
        "power",
        "source",
    )
    pool = ["As more lamps are connected, the current", f"intro {PASSAGE} which one?"]
    queries = ["as more lamps are connected the CURRENT", f"{PASSAGE} other", "w0 w1 w2"]
    assert near_duplicates(queries, pool) == {0: 0, 1: 1}
    short = " ".join(PASSAGE.split()[:-1])  # 19 shared words are not enough
    assert DuplicateIndex(pool).match(f"x {short} y") is None


def test_mmlu_pro_row_163_duplicate_is_out_of_the_train_pool():
    source = get_source("mmlu_pro")
    eval_q = source.get("mmlu_pro-9549")  # General-10 eval row 163 before the rebuild
    assert source.split_of("mmlu_pro-9549") == "eval"
    before = [q for q in _all() if q.qid not in source.fixed_split().eval_ids]
    assert DuplicateIndex(q.text for q in before).match(eval_q.text) is not None
    train = source.pool("train")
    assert "mmlu_pro-9213" not in {q.qid for q in train}
    assert (len(before), len(train)) == (4577, 4533)
    assert DuplicateIndex(q.text for q in train).match(eval_q.text) is None


def test_gsm8k_train_near_duplicate_is_dropped():
    train = get_source("gsm8k").pool("train")
    assert len(train) == 7472 and "gsm8k-train-20" not in {q.qid for q in train}
    assert get_source("gsm8k").get("gsm8k-train-20").qid == "gsm8k-train-20"


def test_audit_fails_an_eval_table_with_a_train_question():
    table = load_table("RSB-General-10", "eval")[:3]
    train_text = get_source("mmlu_pro").pool("train")[0].text
    planted = [table[0], table[1].rebound(question=f"{train_text} Really?"), table[2]]
    assert duplicate_rows(table) == [] and duplicate_rows(planted) == [1]
    report = audit(planted, "dup")
    assert "split (no near-duplicate of a train question)" in {c.name for c in report.failures}
