"""In-process transformers backend: batched left-padded generation, log-probabilities, likelihoods."""
from __future__ import annotations

import json
import os
import threading
import warnings
import zlib
from collections import Counter
from typing import NamedTuple

import torch
from transformers import LogitsProcessor, LogitsProcessorList

from ..types import LogLik, OptionScores, Request, Response
from ..specs import ModelSpec
from . import TRANSFORMERS

_loaded: dict[str, tuple] = {}
_load_lock = threading.Lock()
HEAD_CHUNK = 128  # positions per output-head chunk: 128 x 262k vocab x 4 B = 134 MB at most (gemma3)
# Rows per forward pass come from a token budget, not a fixed count (benchmarks/bench_models.py): on
# CPU a prefill is already matrix-bound, and padded batches past ~1-2k tokens get slower (attention
# masks and activations outgrow the caches), while decoding reads all weights once per step whatever
# the rows, so long replies to short prompts want many rows.
SCORE_TOKENS = 1536   # padded tokens per scoring forward pass (likelihoods, options, perplexity)
PREFILL_TOKENS = 4096  # padded prompt tokens per generation batch
MAX_ROWS = 32          # rows per generation batch
# Prefix reuse (as serving engines' prefix caching does): the longest token prefix shared by a batch's rows
# (chat preamble, instruction, question) runs once and every row continues from its key/value cache.
# Below MIN_SHARED tokens the extra forward pass costs more than it saves.
MIN_SHARED = 16
# False (or env RAGBIAS_PREFIX_REUSE=0): the earlier behaviour (length order, full passes), for the
# benchmark, the tests, and a run that checks the reuse changes no finding
REUSE_PREFIXES = os.environ.get("RAGBIAS_PREFIX_REUSE", "1") != "0"
PREFILL_STATS = Counter()  # prompt positions requested vs computed (incl. padding), read by the benchmark


def threads() -> int:
    """Intra-op threads for this process: RAGBIAS_THREADS, else every core (the runner's kernels run
    one at a time; the test suite sets 1 so parallel kernels do not oversubscribe the cores)."""
    return max(1, int(os.environ.get("RAGBIAS_THREADS") or os.cpu_count() or 1))


def quantize_int8(model):
    """Dynamic int8 quantization of every Linear layer: weights int8 per output channel, activations
    quantized per batch. Faster, but it changes results a lot on the embedded models (docs/benchmarks.md)."""
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with warnings.catch_warnings():
        # torch marks its quantized tensor types deprecated but they still work; keep notebooks quiet
        warnings.simplefilter("ignore")
        # per-channel weights: measured less damage (mean |delta log-prob| 1.40 vs 1.68 per token) and
        # no slower than per-tensor on SmolLM2
        return quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig})


def load(spec: ModelSpec):
    """(model, tokenizer) for an hf: or local: spec, loaded once per process."""
    with _load_lock:
        if spec.key not in _loaded:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            torch.set_num_threads(threads())
            if spec.backend == "local":
                from ..gguf_models import converted_folder

                source = str(converted_folder(spec.model))
            else:
                source = spec.model
            try:
                tok = AutoTokenizer.from_pretrained(source)
                model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32)
            except OSError as e:
                raise RuntimeError(
                    f"Could not load transformers model {spec.model!r} ({e.__class__.__name__}). "
                    "Name a hub id you can download (network needed) or a local folder with config and "
                    "weights; offline, use 'local:smollm2' or 'local:gemma3'.") from e
            model.eval()
            if getattr(spec, "quant", None) == "int8":
                model = quantize_int8(model)
            if tok.pad_token is None:
                tok.pad_token = tok.eos_token
            _loaded[spec.key] = (model, tok)
        return _loaded[spec.key]


def _right_padded(seqs: list[list[int]], pad: int):
    ids = torch.full((len(seqs), max(map(len, seqs))), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, s in enumerate(seqs):
        ids[r, :len(s)] = torch.tensor(s)
        mask[r, :len(s)] = 1
    return ids, mask


def token_batches(order: list[int], lengths, budget: int, max_rows: int | None = None) -> list[list[int]]:
    """Consecutive chunks of `order` whose padded size (rows x longest) stays within `budget` tokens;
    at least one row each, at most max_rows (None: no cap). Sort `order` by length first to waste
    little padding."""
    return prefix_batches([[0] * n for n in lengths], order, budget, max_rows, limits=[0] * len(lengths))


def _shared(lcp: int, limit: int, wider: int, window: int | None, extra: int) -> int:
    """Tokens a batch computes once: its common prefix `lcp`, at most `limit`, none below MIN_SHARED or
    when its longest row (`wider`) plus `extra` tokens would not fit a sliding window (gemma3: 512), where a
    reused cache would keep keys the window no longer sees."""
    p = min(lcp, limit)
    if p < MIN_SHARED or not REUSE_PREFIXES or (window is not None and wider + extra > window):
        return 0
    return p


def prefix_batches(seqs: list[list[int]], order: list[int], budget: int, max_rows: int | None = None,
                   limits: list[int] | None = None, window: int | None = None, extra: int = 0) -> list[list[int]]:
    """Consecutive chunks of `order` whose computed size stays within `budget` positions: rows x the
    longest part after the prefix they share (layout's rule for a root: at most limits[i] tokens of row i,
    MIN_SHARED or more, the whole row plus `extra` inside a sliding `window`). At least one row each,
    at most max_rows (None: no cap)."""
    limits = limits if limits is not None else [len(s) for s in seqs]
    chunks, cur, lcp, longest, limit = [], [], 0, 0, 0
    for i in order:
        if cur:
            wider, limit = max(longest, len(seqs[i])), min(limit, limits[i])
            if min(lcp, limit) >= MIN_SHARED:  # both only shrink: once too short, no need to compare tokens
                lcp = min(lcp, common_prefix([seqs[cur[0]], seqs[i]]))
            p = _shared(lcp, limit, wider, window, extra)
            if (len(cur) + 1) * (wider - p) <= budget and (max_rows is None or len(cur) < max_rows):
                cur.append(i)
                longest = wider
                continue
            chunks.append(cur)
        cur, lcp, longest, limit = [i], len(seqs[i]), len(seqs[i]), limits[i]
    return chunks + ([cur] if cur else [])


def computed_positions(seqs, chunks, limits, window=None, extra=0) -> int:
    """Prompt positions a plan of batches computes (layout: shared tokens once, the rest padded per row)."""
    return sum(layout([seqs[i] for i in c], [limits[i] for i in c], window, extra).computed for c in chunks)


TEMPLATE = 64  # leading tokens that identify a prompt template (chat preamble, instruction)


def plan_batches(seqs: list[list[int]], budget: int, max_rows: int | None = None, idx=None,
                 limits: list[int] | None = None, window: int | None = None, extra: int = 0) -> list[list[int]]:
    """Batches of the rows `idx` (default all) that compute the fewest positions, planned in three orders:
    by token ids (rows with the longest common prefixes side by side: one question's prompts), by
    template then length (little padding inside a template) and by length (the least padding, no
    prefix reuse). Planning is cheap list work; the forward passes are what it saves."""
    idx = list(range(len(seqs))) if idx is None else list(idx)
    limits = limits if limits is not None else [len(s) for s in seqs]
    length = sorted(idx, key=lambda i: len(seqs[i]))
    if not REUSE_PREFIXES:
        return prefix_batches(seqs, length, budget, max_rows, limits, window, extra)
    orders = [sorted(idx, key=seqs.__getitem__), sorted(idx, key=lambda i: (seqs[i][:TEMPLATE], len(seqs[i]))), length]
    plans = [prefix_batches(seqs, o, budget, max_rows, limits, window, extra) for o in orders]
    return min(plans, key=lambda c: computed_positions(seqs, c, limits, window, extra))


def common_prefix(seqs: list[list[int]]) -> int:
    """Length of the longest token prefix shared by every sequence."""
    first, n = seqs[0], min(map(len, seqs))
    for s in seqs[1:]:
        k = 0
        while k < n and s[k] == first[k]:
            k += 1
        n = k
    return n


class Layout(NamedTuple):
    """How one batch's rows share their prefixes: `root` tokens shared by all rows run once; each group
    (rows, end) runs its rows' common tokens root..end once; each row runs the rest from its group's end."""
    root: int
    groups: list[tuple[list[int], int]]
    computed: int  # prompt positions computed this way, padding included


def layout(seqs: list[list[int]], limits: list[int], window: int | None = None, extra: int = 0) -> Layout:
    """The cheapest sharing of one batch (root and groups, see Layout) within the rules of `_shared`:
    row i shares at most limits[i] tokens (its first scored position), a shared run is MIN_SHARED tokens
    or more, and under a sliding window only rows that fit it share. Groups are rows side by side in
    token order whose common tokens reach MIN_SHARED past the root (one question's prompts with the
    same first passage)."""
    n, wider = len(seqs), max(map(len, seqs))
    flat = Layout(0, [(list(range(n)), 0)], n * wider)
    root = _shared(common_prefix(seqs), min(limits), wider, window, extra) if n > 1 else 0
    if root:
        flat = Layout(root, [(list(range(n)), root)], root + n * (wider - root))
    if n < 3 or not root:  # _shared already refused (reuse off, short, or past a sliding window)
        return flat
    groups, cur, end = [], [], 0
    for i in sorted(range(n), key=seqs.__getitem__):
        if cur:
            longer = min(end, common_prefix([seqs[cur[0]], seqs[i]]), limits[i])
            if longer - root >= MIN_SHARED:
                cur.append(i)
                end = longer
                continue
            groups.append((cur, end if len(cur) > 1 else root))
        cur, end = [i], min(len(seqs[i]), limits[i])
    groups.append((cur, end if len(cur) > 1 else root))
    seg = max(e - root for _, e in groups)
    rest = max(len(seqs[i]) - e for rows, e in groups for i in rows)
    two = Layout(root, groups, root + len(groups) * seg + n * rest)
    return two if seg and two.computed < flat.computed else flat


def prefix_cache(model, seqs: list[list[int]], lay: Layout, pad: int):
    """Key/value cache of a batch's shared tokens (root once, then each group's segment once, padded on
    the right), one row per sequence; and its attention mask (rows x cached positions: 0 on padding)."""
    cache = model.base_model(input_ids=torch.tensor([seqs[0][:lay.root]]), use_cache=True).past_key_values
    ends = [e for _, e in lay.groups]
    seg = max(e - lay.root for e in ends)
    mask = torch.ones(len(lay.groups), lay.root, dtype=torch.long)
    cache.batch_repeat_interleave(len(lay.groups))
    if seg:
        ids, seg_mask = _right_padded([seqs[rows[0]][lay.root:e] for rows, e in lay.groups], pad)
        mask = torch.cat([mask, seg_mask], dim=1)
        model.base_model(input_ids=ids, past_key_values=cache, attention_mask=mask,
                         position_ids=torch.arange(lay.root, lay.root + seg).expand(len(ends), -1))
    group_of = torch.empty(len(seqs), dtype=torch.long)
    for g, (rows, _) in enumerate(lay.groups):
        group_of[rows] = g
    cache.batch_select_indices(group_of)
    return cache, mask[group_of]


def row_starts(seqs: list[list[int]], lay: Layout) -> list[int]:
    """First position each row computes itself (its group's end)."""
    starts = [0] * len(seqs)
    for rows, end in lay.groups:
        for i in rows:
            starts[i] = end
    return starts


def hidden_states(model, seqs: list[list[int]], pad: int, limits: list[int] | None = None) -> tuple[torch.Tensor, list[int]]:
    """Last hidden states of right-padded token sequences (no logits) and each row's offset: row r's
    state at position t is hidden[r, t - offsets[r]]. Tokens rows share before their `limits` run once
    (layout); states are returned from each row's first unshared position on."""
    lay = layout(seqs, limits or [0] * len(seqs), getattr(model.config, "sliding_window", None))
    starts = row_starts(seqs, lay)
    ids, mask = _right_padded([s[st:] for s, st in zip(seqs, starts)], pad)
    PREFILL_STATS["requested"] += sum(map(len, seqs))
    PREFILL_STATS["computed"] += lay.computed
    if not lay.root:
        return model.base_model(input_ids=ids, attention_mask=mask).last_hidden_state, starts
    cache, cached_mask = prefix_cache(model, seqs, lay, pad)
    hidden = model.base_model(
        input_ids=ids, past_key_values=cache, attention_mask=torch.cat([cached_mask, mask], dim=1),
        position_ids=torch.tensor(starts)[:, None] + torch.arange(ids.shape[1])).last_hidden_state
    return hidden, starts


def head_logits(model, hidden: torch.Tensor) -> torch.Tensor:
    """float32 logits from hidden states, as the model's own forward computes them (incl. softcapping)."""
    logits = model.get_output_embeddings()(hidden).float()
    cap = getattr(model.config, "final_logit_softcapping", None)
    if cap:
        logits = torch.tanh(logits / cap) * cap
    return logits


@torch.inference_mode()
def span_logprobs(model, seqs: list[list[int]], starts: list[int], pad: int) -> list[float]:
    """Sum of log P(token t | tokens < t) over t in [start, len) of each sequence, in one forward pass.

    Only the scored positions go through the output head, in chunks of HEAD_CHUNK positions, and only
    the target token's log-probability is kept (its logit minus the logsumexp), so the batch never
    holds a positions x vocabulary tensor: the same numbers as log_softmax + gather, less memory.
    """
    hidden, offsets = hidden_states(model, seqs, pad, limits=[st - 1 for st in starts])
    rows, pos, targets = [], [], []
    for r, (s, start, offset) in enumerate(zip(seqs, starts, offsets)):
        if not 1 <= start < len(s):
            raise ValueError(f"Span start {start} must lie in [1, {len(s)}).")
        rows += [r] * (len(s) - start)
        pos += range(start - 1 - offset, len(s) - 1 - offset)  # the hidden state at t-1 predicts token t
        targets += s[start:]
    rows, pos = torch.tensor(rows), torch.tensor(pos)
    lp = target_logprobs(model, hidden[rows, pos], torch.tensor(targets))
    return [float(x) for x in torch.zeros(len(seqs)).index_add_(0, rows, lp)]


def target_logprobs(model, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log P(target) for each (hidden state, target token) row, through the output head in chunks."""
    lp = torch.empty(len(targets))
    for a in range(0, len(targets), HEAD_CHUNK):
        logits = head_logits(model, hidden[a:a + HEAD_CHUNK])
        lp[a:a + HEAD_CHUNK] = (logits.gather(-1, targets[a:a + HEAD_CHUNK, None]).squeeze(-1)
                                - torch.logsumexp(logits, dim=-1))
    return lp


def span_batches(model, seqs: list[list[int]], starts: list[int], pad: int, idx=None, budget: int = SCORE_TOKENS):
    """(row indices, span log-prob sums) per forward pass over the rows `idx` (default all), in the
    batches plan_batches picks: a batch's shared prefix (a context scored with several continuations,
    a common instruction) is computed once."""
    window = getattr(model.config, "sliding_window", None)
    for chunk in plan_batches(seqs, budget, idx=idx, limits=[s - 1 for s in starts], window=window):
        yield chunk, span_logprobs(model, [seqs[i] for i in chunk], [starts[i] for i in chunk], pad)


class _PerRequestSampler(LogitsProcessor):
    """Samples each row with its own seeded generator (temperature, nucleus) and leaves only that token,
    so greedy selection takes it: a request's sample never depends on its batch-mates."""

    def __init__(self, seeds: list[int], temperature: float, top_p: float):
        self.generators = [torch.Generator().manual_seed(s) for s in seeds]
        self.temperature, self.top_p = temperature, top_p

    def __call__(self, input_ids, scores):
        probs = torch.softmax(scores.float() / self.temperature, dim=-1)
        if self.top_p < 1.0:
            sorted_p, order = probs.sort(dim=-1, descending=True)
            # keep the smallest prefix whose mass reaches top_p (the most likely token always stays)
            drop = (sorted_p.cumsum(-1) - sorted_p) >= self.top_p
            probs = probs.scatter(-1, order, sorted_p.masked_fill(drop, 0.0))
        out = torch.full_like(scores, float("-inf"))
        for r, g in enumerate(self.generators):
            out[r, torch.multinomial(probs[r], 1, generator=g)] = 0.0
        return out


def request_seed(req: Request) -> int:
    """The sampling seed of one request, from everything that defines it (prompt, parameters, seed and
    sample index): the same request always samples alike, whatever its batch-mates, and different
    prompts asked with the same sample index do not share one random stream."""
    return zlib.crc32(json.dumps(req.as_dict(), sort_keys=True, ensure_ascii=False).encode())


class TransformersBackend:
    """Batched generation and scoring with a causal LM in this process."""

    gives_logprobs = True

    def __init__(self, spec: ModelSpec, batch_size: int = MAX_ROWS):
        self.spec = spec
        self.batch_size = batch_size

    @property
    def capabilities(self) -> frozenset:
        """TRANSFORMERS, plus `chat` when the tokenizer has a chat template (loads the tokenizer)."""
        return TRANSFORMERS | ({"chat"} if self.tokenizer.chat_template else set())

    @property
    def model(self):
        return load(self.spec)[0]

    @property
    def tokenizer(self):
        return load(self.spec)[1]

    def check(self) -> None:
        """Load the model now, so a bad spec fails before any work."""
        load(self.spec)

    def _prompt_text(self, req: Request) -> str:
        tok = self.tokenizer
        if req.messages is not None:
            if not tok.chat_template:
                raise ValueError(f"{self.spec.key} has no chat template (a base LM): send Request(prompt=...) "
                                 "with raw text instead of chat messages.")
            return tok.apply_chat_template(list(req.messages), tokenize=False, add_generation_prompt=True)
        return req.prompt

    def _context_ids(self, ctx) -> list[int]:
        """Token ids of a context: raw text, or chat messages up to the assistant turn's start."""
        text = self._prompt_text(Request(messages=ctx) if isinstance(ctx, (list, tuple)) else Request(prompt=ctx))
        return self.tokenizer(text, add_special_tokens=True)["input_ids"]

    def generate(self, requests: list[Request], on_result, progress=None) -> None:
        """Generate for all requests in batches of prompts with a common prefix (prompt_batches); call
        on_result(i, Response) per request."""
        groups: dict[tuple, list[int]] = {}
        for i, r in enumerate(requests):
            groups.setdefault((r.temperature, r.top_p, r.max_tokens, r.logprobs), []).append(i)
        texts = [self._prompt_text(r) for r in requests]
        for (temp, top_p, max_tokens, n_lp), idx in groups.items():
            ids = self.tokenizer([texts[i] for i in idx], add_special_tokens=True)["input_ids"]
            for batch in self.prompt_batches(ids, max_tokens):
                chunk = [idx[j] for j in batch]
                for i, resp in zip(chunk, self._generate_batch([requests[i] for i in chunk], [ids[j] for j in batch])):
                    on_result(i, resp)
                    if progress is not None:
                        progress.update(1)

    def prompt_batches(self, ids: list[list[int]], max_tokens: int = 0) -> list[list[int]]:
        """Indices of tokenized prompts in the batches generate runs (plan_batches: a common prefix runs
        once per batch), at most batch_size rows and PREFILL_TOKENS prompt positions computed each."""
        return plan_batches(ids, PREFILL_TOKENS, self.batch_size, limits=[len(s) - 1 for s in ids],
                              window=getattr(self.model.config, "sliding_window", None), extra=max_tokens)

    @torch.inference_mode()
    def _generate_batch(self, reqs: list[Request], ids: list[list[int]]) -> list[Response]:
        tok, model = self.tokenizer, self.model
        first = reqs[0]
        # Prompts as [shared tokens][left padding][rest]: the shared tokens (layout: a root for the batch,
        # a segment per group) run once (prefix_cache) and every row continues from their keys and
        # values; generate takes positions from the attention mask, so padding in the middle changes
        # nothing. With nothing shared this is plain left padding.
        lay = layout(ids, [len(s) - 1 for s in ids], getattr(model.config, "sliding_window", None), first.max_tokens)
        n_rows, pad = len(ids), tok.pad_token_id
        if lay.root:
            cache, mask = prefix_cache(model, ids, lay, pad)
            starts = row_starts(ids, lay)
        else:
            cache, mask, starts = None, torch.zeros(n_rows, 0, dtype=torch.long), [0] * n_rows
        cached = mask.shape[1]
        width = max(len(s) - st for s, st in zip(ids, starts))
        input_ids = torch.full((n_rows, cached + width), pad, dtype=torch.long)
        mask = torch.cat([mask, torch.zeros(n_rows, width, dtype=torch.long)], dim=1)
        for r, (s, st) in enumerate(zip(ids, starts)):
            input_ids[r, :st] = torch.tensor(s[:st], dtype=torch.long)  # what the cache holds (not fed again)
            input_ids[r, cached + width - (len(s) - st):] = torch.tensor(s[st:])
            mask[r, cached + width - (len(s) - st):] = 1
        PREFILL_STATS["requested"] += sum(map(len, ids))
        PREFILL_STATS["computed"] += lay.computed
        # Sampling happens in _PerRequestSampler (one seeded generator per request); generate itself
        # then only takes the one token left, so its own sampler and global RNG are never used.
        kwargs = dict(max_new_tokens=first.max_tokens, do_sample=False, pad_token_id=tok.pad_token_id,
                      return_dict_in_generate=True, output_logits=first.logprobs > 0,
                      temperature=None, top_p=None, top_k=None)
        if cache is not None:
            kwargs["past_key_values"] = cache
        if first.temperature > 0:
            kwargs["logits_processor"] = LogitsProcessorList([_PerRequestSampler(
                [request_seed(r) for r in reqs], first.temperature, first.top_p)])
        out = model.generate(input_ids=input_ids, attention_mask=mask, **kwargs)
        enc = {"input_ids": input_ids, "attention_mask": mask}
        new = out.sequences[:, enc["input_ids"].shape[1]:]
        results = []
        for row, req in enumerate(reqs):
            ids = new[row].tolist()
            n_out = len(ids)
            finish = "length"
            for j, t in enumerate(ids):
                if t in (tok.eos_token_id, tok.pad_token_id) or t in _eos_ids(model):
                    n_out, finish = j, "stop"
                    break
            text = tok.decode(ids[:n_out], skip_special_tokens=True)
            text, stopped = _apply_stop(text, req.stop)
            top = None
            if req.logprobs > 0:
                top = []
                for step in range(n_out):
                    lp = torch.log_softmax(out.logits[step][row].float(), dim=-1)
                    vals, tids = lp.topk(req.logprobs)
                    top.append({tok.decode([t]): float(v) for v, t in zip(vals.tolist(), tids.tolist())})
            results.append(Response(text=text, top_logprobs=top,
                                    tokens_in=int(enc["attention_mask"][row].sum()), tokens_out=n_out,
                                    finish_reason="stop" if stopped else finish))
        return results

    def loglikelihood(self, pairs: list[tuple], on_result, progress=None) -> None:
        """Sum of log-probabilities of each continuation given its context, batched."""
        tok = self.tokenizer
        encoded = []
        for ctx, cont in pairs:
            cont_ids = tok(cont, add_special_tokens=False)["input_ids"]
            if not cont_ids:
                raise ValueError("loglikelihood needs a non-empty continuation.")
            encoded.append((self._context_ids(ctx), cont_ids))
        # rows in token order: continuations of one context (an answer pair's two replies, a prompt's
        # five ratings) and prompts with a common instruction share one pass over what they share
        seqs = [c + o for c, o in encoded]
        for chunk, sums in span_batches(self.model, seqs, [len(c) for c, _ in encoded], tok.pad_token_id):
            self._emit(chunk, sums, encoded, on_result, progress)

    def _continuation_logprobs(self, ctx: list[int], conts: list[list[int]]) -> list[float]:
        """Sum of log P(continuation | context) for several continuations of one context; the context
        runs once where that is exact (layout)."""
        out = [0.0] * len(conts)
        for chunk, sums in span_batches(self.model, [ctx + c for c in conts], [len(ctx)] * len(conts),
                                        self.tokenizer.pad_token_id):
            for j, lp in zip(chunk, sums):
                out[j] = lp
        return out

    @staticmethod
    def _emit(chunk, sums, encoded, on_result, progress) -> None:
        for i, lp in zip(chunk, sums):
            on_result(i, LogLik(lp, len(encoded[i][1])))
            if progress is not None:
                progress.update(1)

    def option_logprobs(self, items: list[tuple], on_result, progress=None) -> None:
        """log P(option | context + prefix) for every option of every (context, prefix, options) item.

        When every option is one token, one forward pass per item reads them all off the next-token
        distribution; otherwise the context runs once and every option is scored as its continuation.
        """
        tok = self.tokenizer
        encoded = []
        for ctx, prefix, options in items:
            ids = self._context_ids(ctx) + (tok(prefix, add_special_tokens=False)["input_ids"] if prefix else [])
            opts = [tok(o, add_special_tokens=False)["input_ids"] for o in options]
            if not options or not all(opts):
                raise ValueError(f"option_logprobs needs non-empty options; got {list(options)!r}.")
            encoded.append((ids, opts))
        single = [i for i, (_, opts) in enumerate(encoded) if all(len(o) == 1 for o in opts)]
        multi = [i for i in range(len(items)) if i not in set(single)]
        ids = [c for c, _ in encoded]
        for chunk in plan_batches(ids, SCORE_TOKENS, idx=single, limits=[len(c) - 1 for c in ids],
                                    window=getattr(self.model.config, "sliding_window", None)):
            for i, lps in zip(chunk, self._next_token_logprobs([encoded[i] for i in chunk])):
                on_result(i, OptionScores(lps, [1] * len(lps), tokens_in=len(encoded[i][0])))
                if progress is not None:
                    progress.update(1)
        for i in multi:
            ids, opts = encoded[i]
            lps = self._continuation_logprobs(ids, opts)
            on_result(i, OptionScores(lps, [len(o) for o in opts], tokens_in=len(ids)))
            if progress is not None:
                progress.update(1)

    def rolling_loglikelihood(self, items: list[tuple], on_result, progress=None) -> None:
        """log P of every token but the first of each (text, stride, max_length) item, summed over
        sliding windows (`windows` below: each window scores only tokens the previous
        one did not, with up to max_length tokens of context); on_result(i, LogLik) per text."""
        tok, model = self.tokenizer, self.model
        limit = min(getattr(model.config, "max_position_embeddings", 1024) or 1024, 1024)
        jobs = []  # (item, window ids, first scored position) for every window of every text
        for i, (text, stride, max_length) in enumerate(items):
            ids = tok(text, add_special_tokens=True)["input_ids"]
            if len(ids) < 2:
                raise ValueError(f"Text {i} has fewer than two tokens; perplexity is undefined.")
            ctx = max_length or limit
            # positions 0..len-2 predict tokens 1..len-1; the first `skip` targets were scored before
            jobs += [(i, w, max(skip, 1)) for w, skip in windows(ids, ctx, min(stride, ctx))]
        logprob, n_tok = [0.0] * len(items), [0] * len(items)
        left = Counter(i for i, _, _ in jobs)  # windows still to score, per text
        lengths = [len(w) for _, w, _ in jobs]
        for chunk in token_batches(sorted(range(len(jobs)), key=lengths.__getitem__), lengths, SCORE_TOKENS):
            sums = span_logprobs(model, [jobs[j][1] for j in chunk], [jobs[j][2] for j in chunk], tok.pad_token_id)
            for j, lp in zip(chunk, sums):
                i, w, start = jobs[j]
                logprob[i] += lp
                n_tok[i] += len(w) - start
                left[i] -= 1
                if not left[i]:  # every window of this text is scored
                    on_result(i, LogLik(logprob[i], n_tok[i]))
                    if progress is not None:
                        progress.update(1)

    @torch.inference_mode()
    def _next_token_logprobs(self, encoded: list[tuple]) -> list[list[float]]:
        model = self.model
        seqs = [ids for ids, _ in encoded]
        hidden, offsets = hidden_states(model, seqs, self.tokenizer.pad_token_id, limits=[len(s) - 1 for s in seqs])
        last = hidden[torch.arange(len(encoded)), torch.tensor([len(ids) - 1 - o for ids, o in zip(seqs, offsets)])]
        logp = torch.log_softmax(head_logits(model, last), dim=-1)
        return [[float(logp[r, o[0]]) for o in opts] for r, (_, opts) in enumerate(encoded)]


def _eos_ids(model) -> set:
    eos = getattr(model.generation_config, "eos_token_id", None)
    if eos is None:
        return set()
    return set(eos) if isinstance(eos, (list, tuple)) else {eos}


def _apply_stop(text: str, stop) -> tuple[str, bool]:
    if not stop:
        return text, False
    cut = min((text.find(s) for s in stop if s in text), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


def windows(ids: list[int], max_length: int, stride: int):
    """(input ids, number of leading positions to ignore) per window, as in the HF perplexity recipe:
    each window scores only tokens not scored by the previous one, with up to max_length context."""
    out, prev_end = [], 0
    for begin in range(0, len(ids), stride):
        end = min(begin + max_length, len(ids))
        out.append((ids[begin:end], (end - begin) - (end - prev_end)))
        prev_end = end
        if end == len(ids):
            break
    return out
