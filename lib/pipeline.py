"""What each numbered notebook reads, writes and needs of its models, declared once.

The runner orders a run by these declarations, refuses a notebook whose required input neither an
earlier notebook of the run, the run folder nor a parameter gives (one line naming both), checks the
run's models against what the notebooks need before any work (a part its models cannot serve is left
out; a missing core need refuses the notebook), and goes on past a failure that no
later notebook depends on. A notebook missing from here reads and writes nothing the runner knows of.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Input:
    """A file a notebook reads from the run folder, the notebook that writes it, and the parameters
    that can give it instead (any one of them set is enough)."""

    file: str
    made_by: str
    parameters: tuple[str, ...] = ()
    required: bool = True  # False: the notebook says what it does without it (demo data, no bank)


@dataclass(frozen=True)
class Need:
    """What a notebook needs of the models of one parameter: one of `any_of` capabilities (names of
    lib.models.backends.CAPABILITIES) for the part named `part`; without it that part is left out."""

    parameter: str
    any_of: tuple[str, ...]
    part: str
    kinds: tuple[str, ...] = ()  # reward-model kinds the need is for (judge, judge:logprob, implicit, rm); () = every model
    chat_context: bool = False  # the part asks with chat messages (likelihoods over an API need raw text)
    # core: without it the notebook has nothing to do, so the runner refuses the run instead of leaving a
    # part out; `instead` is a spec that has it, named in that refusal; any of `unless` set (files that
    # give the values) means no model is asked
    core: bool = False
    instead: str = ""
    unless: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    """One notebook's declaration."""

    stem: str
    reads: tuple[Input, ...] = ()
    writes: tuple[str, ...] = ()
    needs: tuple[Need, ...] = ()
    on_request: str = ""  # `notebooks: all` runs it only when this parameter is given
    # notebooks whose cached replies it reuses: in the same run it starts after them, so that two
    # notebooks at once never both pay for the same requests
    after: tuple[str, ...] = ()

    def waits_for(self) -> tuple[str, ...]:
        """The notebooks it must come after when they are in the run: its inputs' writers and `after`."""
        return tuple(i.made_by for i in self.reads) + self.after


_BANK = Input("passage_bank.jsonl", "02_passage_bank", ("bank_path",))
_ITEMS = Input("items.jsonl", "01_dataset", ("items_path",), required=False)
_GTI = Input("utility_gti.jsonl", "09_utility_benchmarks", ("gti_path",))
_LIKELIHOOD = ("option_logprobs", "loglikelihood")
# backends whose likelihoods take raw text only: an OpenAI-compatible API has no chat template to put
# messages in (lib.models.backends.openai_api refuses them), so a part that asks in chat messages lacks them
RAW_TEXT_LIKELIHOOD = {"openai": frozenset({"loglikelihood"})}
_RM = (Need("reward_models", ("generate",), "generate-and-parse judges", ("judge:generate",)),
       Need("reward_models", ("loglikelihood",), "implicit reward models (likelihoods)", ("implicit",),
            chat_context=True),
       Need("reward_models", ("score",), "reward-model heads", ("rm",)))

STEPS: tuple[Step, ...] = (
    Step("00_quickstart", needs=(Need("chat_model", ("loglikelihood",), "the likelihood example"),)),
    Step("01_dataset", writes=("items.jsonl",)),
    Step("02_passage_bank", reads=(_ITEMS,), writes=("passage_bank.jsonl",)),
    Step("03_perplexity", reads=(Input("passage_bank.jsonl", "02_passage_bank",
                                       ("bank_path", "perplexity_path", "release_dir")),),
         # a server's perplexity comes from its echoed likelihoods of the raw text (lib.models.perplexity)
         needs=(Need("ppl_model", ("rolling_loglikelihood", "loglikelihood"), "perplexity", core=True,
                     instead="local:gemma3", unless=("perplexity_path", "release_dir")),)),
    Step("04_knowledge_probe", reads=(_ITEMS,), writes=("knowledge.jsonl",)),
    Step("05_pointwise_reranking", reads=(_BANK,), writes=("pointwise_ratings.jsonl",),
         needs=(Need("evaluators", _LIKELIHOOD, "likelihood ratings", chat_context=True),)),
    Step("06_generation_phase", reads=(_BANK,), writes=("generation_pairs.jsonl",),
         needs=(Need("evaluators", _LIKELIHOOD, "likelihood choices", chat_context=True),)),
    Step("07_knowledge_stratified", reads=(_BANK, Input("knowledge.jsonl", "04_knowledge_probe", ("knowledge_path",))),
         needs=(Need("evaluators", _LIKELIHOOD, "likelihood choices", chat_context=True),)),
    Step("08_writing_style", reads=(_BANK,), writes=("style_pairs.jsonl",)),
    Step("09_utility_benchmarks", reads=(_ITEMS,), writes=("utility_gti.jsonl", "utility_gtu.jsonl")),
    Step("10_relevance_vs_utility", reads=(_GTI,)),
    Step("11_utility_factors", reads=(_GTI,)),
    Step("12_utility_for_answering", reads=(Input("utility_gtu.jsonl", "09_utility_benchmarks", ("gtu_path",)),),
         writes=("utility_k_runs.jsonl",)),
    Step("13_rewardbench", reads=(Input("passage_bank.jsonl", "02_passage_bank", required=False),),
         writes=("rewardbench_raw.jsonl",), needs=_RM + (
             Need("reward_models", _LIKELIHOOD + ("option_topk",), "log-probability judges", ("judge:logprob",),
                  chat_context=True),)),
    # 14 and 15 read 13's pair verdicts from the cache
    Step("14_rm_difficulty", reads=(Input("passage_bank.jsonl", "02_passage_bank", required=False),), needs=_RM,
         after=("13_rewardbench",)),
    Step("15_best_of_n", reads=(Input("passage_bank.jsonl", "02_passage_bank", required=False),), needs=_RM,
         after=("13_rewardbench",)),
    Step("16_paper_check"),
    Step("17_compare_models", on_request="runs"),
    # reads what 05, 06, 08, 12 and 13 kept (each optional: an arm without its input says so); asks only
    # the content-free inputs of contextual calibration
    Step("18_mitigation", reads=(Input("pointwise_ratings.jsonl", "05_pointwise_reranking", required=False),
                                 Input("generation_pairs.jsonl", "06_generation_phase", required=False),
                                 Input("style_pairs.jsonl", "08_writing_style", required=False),
                                 Input("utility_k_runs.jsonl", "12_utility_for_answering", required=False),
                                 Input("rewardbench_raw.jsonl", "13_rewardbench", required=False)),
         writes=("content_free.jsonl",),
         needs=(Need("evaluators", _LIKELIHOOD, "contextual calibration", chat_context=True),)),
)


def step(stem: str) -> Step:
    """A notebook's declaration (an empty one for a notebook not declared here)."""
    return next((s for s in STEPS if s.stem == stem), Step(stem))


def order(stems: list[str]) -> list[str]:
    """The stems in run order: by number, except that a notebook comes after the notebooks (among
    these) that write what it reads or whose cached replies it reuses."""
    chosen, done = sorted(stems), []
    while len(done) < len(chosen):
        ready = [s for s in chosen if s not in done
                 and all(w in done or w not in chosen for w in step(s).waits_for())]
        if not ready:  # a cycle in the declarations: keep the numbered order for the rest
            ready = [s for s in chosen if s not in done]
        done.append(ready[0])
    return done


def missing_input(stem: str, params: dict, earlier: list[str], run_folder, run_name: str) -> str | None:
    """One line when a required input of `stem` comes from nowhere (not an earlier notebook of this
    run, not the run folder, no parameter), naming what to run or pass; None when it is there."""
    from pathlib import Path

    for i in step(stem).reads:
        if not i.required or i.made_by in earlier or (Path(run_folder) / i.file).exists():
            continue
        if any(params.get(p) not in (None, "", [], {}) for p in i.parameters):
            continue
        passes = " or ".join(f"-p {p}=<file>" for p in i.parameters[:1]) or "the file"
        return (f"{stem} needs {i.file}, which run '{run_name}' does not have: run {i.made_by} first "
                f"(e.g. --only {i.made_by[:2]},{stem[:2]}) or pass {passes}.")
    return None


def reward_kind(rm) -> str:
    """A parsed reward-model spec's kind as needs name it: judge:generate, judge:logprob, implicit, rm."""
    if rm.kind == "judge":
        return "judge:" + ("logprob" if rm.options.get("decide") == "logprob" else "generate")
    return rm.kind


def _targets(need: Need, value) -> list[str]:
    """The model specs a need applies to in a parameter's value ('rm:<head>' for reward heads)."""
    from lib.models.specs import parse_reward_spec

    if not value:
        return []
    if need.parameter != "reward_models" and not need.kinds:
        return [value] if isinstance(value, str) else list(value)
    out = []
    for spec in ([value] if isinstance(value, str) else value):
        rm = parse_reward_spec(spec)
        if need.kinds and reward_kind(rm) not in need.kinds:
            continue
        out.append(spec if rm.kind == "rm" else rm.target)
        if rm.options.get("ref"):
            out.append(rm.options["ref"])
    return out


def capabilities(spec: str, probe: bool = True) -> frozenset:
    """What a model spec can do, as its backend declares it; with `probe`, a server's likelihoods only
    after its echo probe passed (one cached request: CachedModel's probe, the one every likelihood
    call uses)."""
    from lib.models import get_model
    from lib.models.backends import REWARD_HEAD, declared_for
    from lib.models.specs import parse_spec

    if spec.startswith("rm:"):
        return REWARD_HEAD
    caps = set(declared_for(parse_spec(spec))[0])  # a server declared a base LM (`;base`) takes no chat
    if probe and "echo_probe" in caps:
        if get_model(spec).echo_problem() is not None:  # the probe said why not
            caps -= {"loglikelihood", "echo_probe"}
    return frozenset(caps)


def _echo_decided(need: Need, spec: str, caps: frozenset, known: dict) -> frozenset:
    """`caps`, or, where only a server's echo can serve `need`, what its echo probe says (asked once
    per spec: `known` keeps the verdict)."""
    if set(need.any_of) & caps == {"loglikelihood"} and "echo_probe" in caps:
        if spec not in known:
            known[spec] = capabilities(spec)
        return known[spec]
    return caps


def core_missing(stem: str, params: dict) -> str | None:
    """One line when a model of `stem` lacks a capability the notebook cannot do without (a core need),
    naming the notebook, the model and what to pass instead; None when every core need is met."""
    for need in step(stem).needs:
        if not need.core or any(params.get(p) not in (None, "", [], {}) for p in need.unless):
            continue
        for spec in _targets(need, params.get(need.parameter)):
            caps = capabilities(spec, probe=False)
            try:
                caps = _echo_decided(need, spec, caps, {})
            except Exception:  # noqa: BLE001 - no key or no server: nothing can give it here
                caps = caps - {"loglikelihood"}
            if not set(need.any_of) & caps:
                files = "".join(f" or -p {p}=<file>" for p in need.unless[:1])
                return (f"{stem} cannot run: its {need.parameter} `{spec}` gives no {need.part} (needs "
                        f"{' or '.join(need.any_of)}, which it does not give); pass a model that "
                        f"does, e.g. -p {need.parameter}={need.instead or '<model>'}{files}.")
    return None


def left_out(stem: str, params: dict, known: dict | None = None) -> list[dict]:
    """The parts of a notebook its models cannot serve: {notebook, part, model, needs} per part and
    model; a server's echo probe is asked only where it decides a part, and `known` keeps its
    verdict per spec across notebooks."""
    known = {} if known is None else known
    out = []
    for need in step(stem).needs:
        for spec in _targets(need, params.get(need.parameter)):
            caps = capabilities(spec, probe=False)
            # a part asked in chat messages; a base LM (`;base` server, local:gemma3) is asked in raw text
            if need.chat_context and not spec.startswith("rm:") and "chat" in caps:
                from lib.models.specs import parse_spec

                caps = caps - RAW_TEXT_LIKELIHOOD.get(parse_spec(spec).backend, frozenset())
            else:
                caps = _echo_decided(need, spec, caps, known)
            if not set(need.any_of) & caps:
                out.append({"notebook": stem, "part": need.part, "model": spec, "needs": " or ".join(need.any_of)})
    return out
