# The differential tester's program model: a Tensor-level .pto program as data, printed to and
# parsed back from the canonical text the generator writes.
import copy
import re
from dataclasses import dataclass, field

FLOATS = ("f32", "f16", "bf16")
DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "i32": 4, "i1": 1}


@dataclass
class Value:
    name: str
    shape: tuple
    dtype: str


@dataclass
class Loop:
    """A counted loop's header and body (docs/PTO_LANGUAGE.md, "Loops and calls")."""
    iv: str
    lower: int
    upper: object  # an int, or the name of an index argument bound with --bind
    step: int
    carried: list  # iter_args names, one per init operand of the op
    body: list  # [Op]
    yields: list  # value names
    name: str = None  # the loop's label, or None (unnamed)


@dataclass
class Op:
    kind: str  # mnemonic, or "vec_tile" / "cube_tile" for a scoped directive
    result: str = ""  # value name without '%' ("" for directives)
    operands: list = field(default_factory=list)  # value names
    attrs: list = field(default_factory=list)  # [(key, text)] in written order
    declared: tuple = None  # (shape, dtype) written after ':' or None
    sizes: list = None  # directive sizes: vec_tile [..]; cube_tile [[..], [..], [..]]
    loop: Loop = None  # kind "for": header and body; `results` names the loop's results
    results: list = None

    def attr(self, key, default=None):
        for k, v in self.attrs:
            if k == key:
                return v
        return default


@dataclass
class Func:
    """A helper function the entry calls (`call @name(…)`, inlined by the compiler)."""
    name: str
    args: list  # [Value]
    ops: list  # [Op]
    returns: list  # value names


@dataclass
class Program:
    args: list  # [Value]
    ops: list  # [Op]
    returns: list  # value names
    types: dict = field(default_factory=dict)  # value name -> (shape, dtype)
    binds: dict = field(default_factory=dict)  # index argument -> the trip count bound at run
    funcs: list = field(default_factory=list)  # [Func] printed before @main

    def copy(self):
        return copy.deepcopy(self)

    def has_loops(self):
        return any(o.kind == "for" for o in self.ops)


def type_text(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def int_list(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def loop_lines(op, indent):
    """A loop as lines: header, body one level deeper, yield, closing brace."""
    lp = op.loop
    head = ", ".join("%" + r for r in op.results) + " = for "
    if lp.name:
        head += f'"{lp.name}" '
    upper = lp.upper if isinstance(lp.upper, int) else "%" + lp.upper
    head += f"%{lp.iv} = {lp.lower} to {upper} step {lp.step}"
    if lp.carried:
        head += " iter_args(" + ", ".join(
            f"%{c} = %{i}" for c, i in zip(lp.carried, op.operands)) + ")"
    lines = [indent + head + " {"]
    for o in lp.body:
        lines += op_lines(o, indent + "  ")
    if lp.yields:
        lines.append(indent + "  yield " + ", ".join("%" + y for y in lp.yields))
    lines.append(indent + "}")
    return lines


def call_text(op):
    """`%a, %b = call @h(%x, %y)`: a call's results and arguments."""
    return (", ".join("%" + r for r in op.results) + f" = call @{op.attr('callee')}("
            + ", ".join("%" + o for o in op.operands) + ")")


def op_lines(op, indent="  "):
    if op.kind == "for":
        return loop_lines(op, indent)
    return [indent + (call_text(op) if op.kind == "call" else op_text(op))]


def arg_text(a):
    return f"%{a.name}: " + ("index" if a.dtype == "index" else type_text(a.shape, a.dtype))


def op_text(op):
    if op.kind == "vec_tile":
        return "vec_tile " + int_list(op.sizes)
    if op.kind == "cube_tile":
        return "cube_tile " + ", ".join(int_list(s) for s in op.sizes)
    text = f"%{op.result} = {op.kind}"
    operands = ", ".join("%" + o for o in op.operands)
    if op.kind in SCALAR_OPS:
        operands += ", " + op.attr("scalar")
    if operands:
        text += " " + operands
    attrs = [(k, v) for k, v in op.attrs if not (op.kind in SCALAR_OPS and k == "scalar")]
    if attrs:
        text += " {" + ", ".join(k if v is None else f"{k} = {v}" for k, v in attrs) + "}"
    if op.declared is not None:
        text += " : " + type_text(*op.declared)
    return text


def function_lines(name, args, ops, returns, types):
    rtypes = [type_text(*types[r]) for r in returns]
    res = rtypes[0] if len(rtypes) == 1 else "(" + ", ".join(rtypes) + ")"
    lines = [f"func @{name}({', '.join(arg_text(a) for a in args)}) -> {res} {{"]
    for o in ops:
        lines += op_lines(o)
    lines.append("  return " + ", ".join("%" + r for r in returns))
    lines.append("}")
    return lines


def print_program(p, header=""):
    lines = [f"// {line}" for line in header.splitlines()] if header else []
    for f in p.funcs:
        lines += function_lines(f.name, f.args, f.ops, f.returns, p.types)
    lines += function_lines("main", p.args, p.ops, p.returns, p.types)
    return "\n".join(lines) + "\n"


SCALAR_OPS = {"adds", "subs", "muls", "divs", "maxs", "mins", "cmps"}

_TYPE = re.compile(r"tensor<((?:\d+x)*)(\w+)>")


def parse_type(text):
    m = _TYPE.fullmatch(text.strip())
    if not m:
        raise ValueError(f"bad type {text!r}")
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return dims, m.group(2)


def _split_top(text, sep=","):
    """Splits at `sep` outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[<({":
            depth += 1
        elif ch in "]>)}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _parse_ints(text):
    return [int(x) for x in text.strip().strip("[]").split(",") if x.strip()]


_FOR = re.compile(r'(%\w+(?:, %\w+)*) = for (?:"([^"]+)" )?%(\w+) = (-?\d+) to (%?\w+) '
                  r'step (\d+)(?: iter_args\((.*)\))? \{$')


_CALL = re.compile(r"(%\w+(?:, %\w+)*) = call @(\w+)\((.*)\)$")


def _parse_for(m, lines, at):
    """The loop whose header matched `m`; its body starts at lines[at]. Returns (op, next)."""
    results = [r.strip()[1:] for r in m.group(1).split(",")]
    upper = m.group(5)
    upper = upper[1:] if upper.startswith("%") else int(upper)
    carried, inits = [], []
    for pair in _split_top(m.group(7) or ""):
        c, i = pair.split("=")
        carried.append(c.strip()[1:])
        inits.append(i.strip()[1:])
    body, yields, at = _parse_ops(lines, at)
    lp = Loop(m.group(3), int(m.group(4)), upper, int(m.group(6)), carried, body, yields,
              m.group(2))
    return Op("for", operands=inits, loop=lp, results=results), at


def _parse_ops(lines, at):
    """Ops from lines[at] to the closing '}' (or 'return'): (ops, yields or returns, next)."""
    ops = []
    while at < len(lines):
        ln = lines[at]
        at += 1
        if ln == "}":
            return ops, [], at
        if ln.startswith("return") or ln.startswith("yield"):
            word = ln.split(None, 1)[0]
            names = [r.strip()[1:] for r in ln[len(word):].split(",")]
            if word == "yield" and at < len(lines) and lines[at] == "}":
                at += 1
            return ops, names, at
        m = _FOR.match(ln)
        if m:
            op, at = _parse_for(m, lines, at)
            ops.append(op)
            continue
        m = _CALL.match(ln)
        if m:
            ops.append(Op("call", operands=[o.strip()[1:] for o in _split_top(m.group(3))],
                          attrs=[("callee", m.group(2))],
                          results=[r.strip()[1:] for r in m.group(1).split(",")]))
            continue
        ops.append(_parse_op(ln))
    return ops, [], at


def parse_program(text):
    """Parses the canonical text print_program writes (one op per line): helper functions, then
    @main."""
    body = [ln.split("//")[0].strip() for ln in text.splitlines()]
    body = [ln for ln in body if ln]
    funcs, at = [], 0
    while at < len(body):
        m = re.match(r"func @(\w+)\((.*)\) -> (.*) \{$", body[at])
        if not m:
            raise ValueError(f"bad header {body[at]!r}")
        args = []
        for a in _split_top(m.group(2)):
            name, ty = a.split(":", 1)
            if ty.strip() == "index":
                args.append(Value(name.strip()[1:], None, "index"))
                continue
            shape, dtype = parse_type(ty)
            args.append(Value(name.strip()[1:], shape, dtype))
        ops, returns, at = _parse_ops(body, at + 1)
        if at < len(body) and body[at] == "}":
            at += 1
        funcs.append(Func(m.group(1), args, ops, returns))
    entry = funcs.pop()
    return Program(entry.args, entry.ops, entry.returns, funcs=funcs)


def _parse_op(ln):
    """One op or directive line."""
    if ln.startswith("vec_tile"):
        return Op("vec_tile", sizes=_parse_ints(ln[len("vec_tile"):]))
    if ln.startswith("cube_tile"):
        return Op("cube_tile",
                  sizes=[_parse_ints(s) for s in _split_top(ln[len("cube_tile"):])])
    lhs, rhs = ln.split("=", 1)
    rhs = rhs.strip()
    declared = None
    parts = _split_top(rhs, ":")
    if len(parts) == 2:
        rhs, declared = parts[0], parse_type(parts[1])
    attrs = []
    if "{" in rhs:
        rhs, attr_text = rhs.split("{", 1)
        for a in _split_top(attr_text.rsplit("}", 1)[0]):
            if "=" in a:
                k, v = a.split("=", 1)
                attrs.append((k.strip(), v.strip()))
            else:
                attrs.append((a.strip(), None))
    words = rhs.strip().split(None, 1)
    kind = words[0]
    operands = []
    for o in _split_top(words[1]) if len(words) > 1 else []:
        if o.startswith("%"):
            operands.append(o[1:])
        else:
            attrs.insert(0, ("scalar", o))
    return Op(kind, lhs.strip()[1:], operands, attrs, declared)
