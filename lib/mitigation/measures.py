"""The mitigation arms' findings measures, declared once (lib.report.measures). Every id reads
`<arm>.<source notebook>.<quantity>` (length control of a scalar reward model adds its kind); the
estimate of a tested row is after minus before on the same units (0: the arm changes nothing). All of
it is beyond the papers."""
from __future__ import annotations

from lib.report.measures import Measure

NB = "18_mitigation"
STUDY = "mitigation"
TRUTH = "lib.simulate.mitigation.truth:mitigation_truths"  # the balanced, length, order and decomposition truths
_NO_JUDGMENTS = ("the arms re-read 05, 06, 08, 12 and 13's judgments (inspect those notebooks'); 18 keeps only "
                 "content-free replies")
_NO_CONTENT_FREE = "the simulator's echo of a content-free rating prompt (05) is not a planted prior"


def _m(pattern: str, name: str, null, axis: str, unit: str = "question", **kw) -> Measure:
    no_truth = kw.pop("no_truth", "")
    return Measure(pattern, name, STUDY, NB, unit, null, axis=axis, no_truth=no_truth, truth="" if no_truth else TRUTH,
                   no_judgments=_NO_JUDGMENTS, **kw)


MEASURES = (
    # listed before the families they would otherwise fall in: a measure_id belongs to the first match
    _m("balanced.{source}.flipped", "balanced calibration: share of per-order verdicts it flips", None,
       "share of verdicts flipped"),
    _m("contextual.13.flipped", "contextual calibration of 13's judge: share of per-order verdicts it flips", None,
       "share of verdicts flipped"),
    _m("contextual.{source}.flipped", "contextual calibration: share of per-order verdicts it flips", None,
       "share of verdicts flipped", no_truth=_NO_CONTENT_FREE),
    _m("contextual.13.{quantity}", "contextual calibration of 13's judge (content-free prior divided out): after minus before",
       0.0, "change (after minus before)"),
    _m("balanced.{source}.{quantity}", "balanced position calibration: after minus before", 0.0,
       "change in the rate (after minus before)"),
    _m("contextual.{source}.{quantity}", "contextual calibration (content-free prior divided out): after minus before",
       0.0, "change (after minus before)", no_truth=_NO_CONTENT_FREE),
    _m("temperature.{source}.{quantity}", "temperature scaling of the expected score: after minus before", 0.0,
       "change in rating points (after minus before)"),
    _m("length_control.08.{kind}", "length-controlled style preference minus style preference, 08's generated "
       "verdicts (a 0/1 logistic fit)", 0.0, "change in the preference at equal lengths"),
    _m("length_control.{source}.{quantity}", "length-controlled accuracy minus accuracy", 0.0,
       "change in accuracy at equal lengths"),
    _m("length_control.{source}.{quantity}.generate_and_parse",
       "length-controlled accuracy minus accuracy, generated verdicts (a 0/1 logistic fit)", 0.0,
       "change in accuracy at equal lengths"),
    _m("length_control.{source}.{quantity}.{reward}", "length-controlled accuracy minus accuracy, a scalar reward model",
       0.0, "change in accuracy at equal lengths",
       no_truth="the simulator serves no scalar reward model (its length truth is the log-probability judge's)"),
    _m("order_averaged.{source}.flipped", "listwise order averaging: share of passages whose selection the vote flips",
       None, "share of passages flipped"),
    _m("order_averaged.{source}.{quantity}", "listwise order averaging (vote over k shuffles): after minus before",
       0.0, "change in the share (after minus before)"),
    _m("self_decomposition.{source}.harmful_excess",
       "own wrong passage chosen minus another's wrong passage chosen", 0.0,
       "P(own | own false) - P(other | other false)"),
    _m("self_decomposition.{source}.{part}", "self-preference part (harmful, baseline, legitimate)", None,
       "share of pairs"),
)
CARD = ()
# the bias card's "after mitigation" column (lib.profile): card row -> the arms' change, preferred first
MITIGATES = {
    "position": ("balanced.06.position", "contextual.13.position", "balanced.13.position"),
    "self_pairwise": ("balanced.06.self",),
    "factual": ("balanced.06.factual",),
    "self_pointwise": ("contextual.05.human_minus_self_rag", "temperature.05.human_minus_self_rag"),
    "judge_accuracy": ("balanced.13.accuracy", "contextual.13.accuracy", "length_control.13.accuracy"),
    "style_long": ("length_control.08.long",),
}
# captions of the tables notebook 18 writes (lib.report.captions reads them from here)
CAPTIONS = {
    "18_content_free_priors": "Mitigation: each model's option prior for content-free inputs (contextual calibration)",
    "18_mitigation_arms": "Mitigation arms: each reading before and after, the paired difference and its 95% interval",
    "18_self_decomposition": "Self-preference decomposed: own wrong passage chosen, another's wrong passage chosen",
}
