# The differential tester's minimiser: shrinks a failing program (drop ops, cut ops into
# arguments, remove directives, shrink dims) while it keeps failing the same way (same class
# and normalised reason).
import interp
from gen import TILED_LAYOUT, VEC_OPS, op_class
from program import Value


def _uses(p, name):
    return [o for o in p.ops if name in o.operands]


def _valid(p):
    """Re-infers types; None when the candidate is not even well-formed for the reference."""
    try:
        interp.infer_types(p)
    except Exception:
        return None
    names = set(p.types)
    if any(r not in names for r in p.returns):
        return None
    return p if directives_ok(p) else None


def sizes_ok(sizes, shape):
    """The documented tile rules (docs/PASSES.md) the generator keeps: one size per dim, rows a
    multiple of 32 elements or the whole last dim, consecutive rows."""
    if len(sizes) != len(shape) or any(s < 1 or s > d for s, d in zip(sizes, shape)):
        return False
    if shape and sizes[-1] != shape[-1] and sizes[-1] % 32:
        return False
    lead = list(zip(sizes[:-1], shape[:-1]))
    for i, (s, _) in enumerate(lead):
        if s > 1 and any(s2 != d2 for s2, d2 in lead[i + 1:]):
            return False
    return True


def directives_ok(p):
    scope = None
    for o in p.ops:
        if o.kind == "vec_tile":
            scope = o.sizes
            continue
        cls = op_class(o.kind)
        if cls not in VEC_OPS and o.kind not in TILED_LAYOUT:
            continue
        shape = p.types[o.operands[0]][0] if cls == "Reduce" else p.types[o.result][0]
        own = o.attr("vec_tile")
        sizes = [int(x) for x in own.strip("[]").split(",") if x.strip()] if own else scope
        if sizes is not None and not sizes_ok(list(sizes), list(shape)):
            return False
        if sizes is not None and o.kind == "transpose" and len(shape) >= 2 and (
                sizes[-2] != shape[-2] and sizes[-2] % 32):
            return False  # the source's rows: the 32 B rule on both sides
    return True


def _reads(o):
    """The names op `o` reads: its operands, and for a loop every name its body reads."""
    if o.kind != "for":
        return list(o.operands)
    names = list(o.operands)
    for b in o.loop.body:
        names += _reads(b)
    return names + list(o.loop.yields)


def _drop_dead(p):
    live = set(p.returns)
    keep = []
    for o in reversed(p.ops):
        if o.kind in ("vec_tile", "cube_tile") or o.result in live or (
                o.kind == "for" and live.intersection(o.results)):
            keep.append(o)
            live.update(_reads(o))
    p.ops = list(reversed(keep))
    p.args = [a for a in p.args if a.name in live]
    # directives with nothing after them
    while p.ops and p.ops[-1].kind in ("vec_tile", "cube_tile"):
        p.ops.pop()
    return p


def candidates(p):
    """Smaller variants of p, most promising first."""
    # 1. return an earlier value (drops the tail)
    results = [o.result for o in p.ops if o.result]
    for r in results[:-1]:
        q = p.copy()
        q.returns = [r]
        yield _drop_dead(q)
    if len(p.returns) > 1:
        for r in p.returns:
            q = p.copy()
            q.returns = [r]
            yield _drop_dead(q)
    # 2. cut an op: its result becomes an argument
    for i, o in enumerate(p.ops):
        if not o.result:
            continue
        q = p.copy()
        shape, dtype = p.types[o.result]
        role = "p" if o.kind in ("abs", "adds", "exp") else "x"
        name = role + "c" + str(i)
        q.ops = [x for x in q.ops if x.result != o.result]
        for x in q.ops:
            x.operands = [name if n == o.result else n for n in x.operands]
        q.returns = [name if n == o.result else n for n in q.returns]
        if name in q.returns:
            continue
        q.args.append(Value(name, shape, dtype))
        yield _drop_dead(q)
    # 3. directives
    if any(o.kind in ("vec_tile", "cube_tile") for o in p.ops):
        q = p.copy()
        q.ops = [o for o in q.ops if o.kind not in ("vec_tile", "cube_tile")]
        yield q
        for i, o in enumerate(p.ops):
            if o.kind in ("vec_tile", "cube_tile"):
                q = p.copy()
                del q.ops[i]
                yield q
    for i, o in enumerate(p.ops):
        if any(k in ("vec_tile", "cube_tile") for k, _ in o.attrs):
            q = p.copy()
            q.ops[i].attrs = [(k, v) for k, v in o.attrs if k not in ("vec_tile", "cube_tile")]
            yield q
    # 4. other attributes that are optional
    for i, o in enumerate(p.ops):
        for k, _ in o.attrs:
            if k in ("keepdim", "transpose_a", "transpose_b", "round", "eps"):
                q = p.copy()
                q.ops[i].attrs = [(a, v) for a, v in o.attrs if a != k]
                yield q
    # 5. shrink a dim size everywhere it occurs
    dims = sorted({d for a in p.args if a.shape for d in a.shape if d > 1}, reverse=True)
    for d in dims:
        for new in sorted({1, 2, 3, d // 2, 16, 17, 32}):
            if new >= d or new < 1:
                continue
            yield _resize(p, d, new)


def _resize(p, d, new):
    q = p.copy()

    def fix(shape):
        return tuple(new if x == d else x for x in shape)

    q.args = [Value(a.name, fix(a.shape) if a.shape else a.shape, a.dtype) for a in q.args]
    for o in q.ops:
        if o.declared is not None:
            o.declared = (fix(o.declared[0]), o.declared[1])
        if o.kind == "vec_tile":
            o.sizes = [min(s, new) if s == d or s > new else s for s in o.sizes]
        new_attrs = []
        for k, v in o.attrs:
            if k in ("vec_tile", "sizes") and v:
                xs = [int(x) for x in v.strip("[]").split(",")]
                xs = [new if x == d else min(x, max(new, 1)) if x > new else x for x in xs]
                v = "[" + ", ".join(map(str, xs)) + "]"
            if k == "offsets" and v:
                xs = [int(x) for x in v.strip("[]").split(",")]
                v = "[" + ", ".join("0" for _ in xs) + "]"
            new_attrs.append((k, v))
        o.attrs = new_attrs
    return q


def size(p):
    n_ops = len([o for o in p.ops if o.result])
    n_dir = len([o for o in p.ops if not o.result]) + sum(
        1 for o in p.ops for k, _ in o.attrs if k in ("vec_tile", "cube_tile"))
    elems = sum(max(1, _numel(a.shape or ())) for a in p.args)
    return (n_ops, n_dir, elems, len(p.args))


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def minimize(p, still_fails, budget=80, log=None):
    """Greedy shrinking: take the first smaller candidate that still fails the same way, until
    no candidate does or `budget` runs are spent. `still_fails(program) -> bool`."""
    best = p.copy()
    runs = 0
    progress = True
    while progress and runs < budget:
        progress = False
        for c in candidates(best):
            if c is None or runs >= budget:
                continue
            c = _valid(c)
            if c is None or size(c) >= size(best):
                continue
            runs += 1
            if still_fails(c):
                best = c
                progress = True
                if log:
                    log(f"  shrunk to {size(best)}")
                break
    return best, runs
