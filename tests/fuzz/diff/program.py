# The differential tester's program model: a Tensor-level .pto program as data, printed to and
# parsed back from the canonical text the generator writes.
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
class Op:
    kind: str  # mnemonic, or "vec_tile" / "cube_tile" for a scoped directive
    result: str = ""  # value name without '%' ("" for directives)
    operands: list = field(default_factory=list)  # value names
    attrs: list = field(default_factory=list)  # [(key, text)] in written order
    declared: tuple = None  # (shape, dtype) written after ':' or None
    sizes: list = None  # directive sizes: vec_tile [..]; cube_tile [[..], [..], [..]]

    def attr(self, key, default=None):
        for k, v in self.attrs:
            if k == key:
                return v
        return default


@dataclass
class Program:
    args: list  # [Value]
    ops: list  # [Op]
    returns: list  # value names
    types: dict = field(default_factory=dict)  # value name -> (shape, dtype)

    def copy(self):
        return Program(
            [Value(a.name, a.shape, a.dtype) for a in self.args],
            [
                Op(o.kind, o.result, list(o.operands), list(o.attrs), o.declared,
                   None if o.sizes is None else [list(s) if isinstance(s, list) else s
                                                 for s in o.sizes])
                for o in self.ops
            ],
            list(self.returns),
            dict(self.types),
        )


def type_text(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def int_list(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


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


def print_program(p, header=""):
    lines = [f"// {line}" for line in header.splitlines()] if header else []
    args = ", ".join(f"%{a.name}: {type_text(a.shape, a.dtype)}" for a in p.args)
    rtypes = [type_text(*p.types[r]) for r in p.returns]
    res = rtypes[0] if len(rtypes) == 1 else "(" + ", ".join(rtypes) + ")"
    lines.append(f"func @main({args}) -> {res} {{")
    lines += ["  " + op_text(o) for o in p.ops]
    lines.append("  return " + ", ".join("%" + r for r in p.returns))
    lines.append("}")
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


def parse_program(text):
    """Parses the canonical text print_program writes (one op per line)."""
    body = [ln.split("//")[0].strip() for ln in text.splitlines()]
    body = [ln for ln in body if ln]
    head = body[0]
    m = re.match(r"func @\w+\((.*)\) -> (.*) \{$", head)
    if not m:
        raise ValueError(f"bad header {head!r}")
    args = []
    for a in _split_top(m.group(1)):
        name, ty = a.split(":", 1)
        shape, dtype = parse_type(ty)
        args.append(Value(name.strip()[1:], shape, dtype))
    ops, returns = [], []
    for ln in body[1:]:
        if ln == "}":
            break
        if ln.startswith("return"):
            returns = [r.strip()[1:] for r in ln[len("return"):].split(",")]
            continue
        if ln.startswith("vec_tile"):
            ops.append(Op("vec_tile", sizes=_parse_ints(ln[len("vec_tile"):])))
            continue
        if ln.startswith("cube_tile"):
            ops.append(Op("cube_tile",
                          sizes=[_parse_ints(s) for s in _split_top(ln[len("cube_tile"):])]))
            continue
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
        ops.append(Op(kind, lhs.strip()[1:], operands, attrs, declared))
    p = Program(args, ops, returns)
    return p
