"""Save a PyTorch model as TorchScript that carries its own signature, for `torch2onnx export`; or
export a model to ONNX through torch.export as torch.onnx.export(..., dynamo=True) does (`export`,
`convert`, `ExportError`: see torch2onnx._export).

    import torch2onnx
    torch2onnx.save(model, (x, (h0, c0)), "lstm.pt",
                    input_names=["input", "h0", "c0"], output_names=["output", "hn", "cn"],
                    dynamic_axes={"input": {0: "seq", 1: "batch"}})

then `torch2onnx export lstm.pt -o lstm.onnx` needs no --input (explicit options still win).

`save` traces the model the way torch.onnx.export does, so it accepts what torch.jit.trace refuses:
  * args is a tuple of forward()'s arguments (a single tensor may be given alone); a dict as the
    last element holds keyword arguments (write `(x, {"a": t}, {})` to pass a dict positionally);
  * tensors inside tuples, lists and dicts are flattened, depth first, into the graph inputs;
  * int, float, bool, str and None arguments (also inside tuples) are baked in as constants; with no
    tensor at all the graph has no input and its outputs are constants, as torch.onnx makes them;
  * a torch.autograd.Function is traced through its forward()'s ops, as torch.onnx 1.13 inlines one
    without a symbolic(); one with a symbolic() is refused, naming it (torch.onnx calls that Python);
  * a TorchScript module returning Python numbers or lists of them (x.item(), x.tolist()), which the
    tracer cannot record, is saved as its own TorchScript (its arguments the saved specs, numbers baked
    in); the export returns an int as a 0-d int64 tensor, a list of ints as a 1-D one, as torch.onnx;
  * outputs are flattened the same way (tuples, lists, dict values) and None outputs are dropped;
    Python numbers returned become 0-d tensor outputs, as torch.onnx makes them: int -> int64,
    float -> float64, bool -> bool (their values as traced: constants);
  * the model runs without autograd while it is traced, in the mode `training` asks (eval by
    default, as export does); its buffers (BatchNorm's running statistics) are left as they were;
  * input_names (and output_names) may name only the first inputs (outputs): the rest keep their
    default names, as torch.onnx does.
The saved module's forward() takes the flattened tensors. The signature is stored in the .pt as the
TorchScript extra file "torch2onnx_signature.json":
  {"version": 1,
   "inputs": ["float32[5,3,10]", ...],        one --input spec per graph input
   "input_names": [...], "output_names": [...],
   "dynamic_axes": ["input=0:seq,1:batch", ...], as --dynamic-axes
   "example_inputs": ["torch2onnx_example_0.npy", ...],  extra files with the traced example values
   "example_quantization": [null, {"scale": 0.02, "zero_point": 128}, ...],  per example file, when any
                                 is quantized: its grid (the file holds its integer values, int_repr)
   "dequantized_io": true,       save(dequantized_io=...), when given: quantized inputs and results as
                                 float32 tensors of their dequantized values (as --dequantized-io)
   "forward_inputs": ["float32[5,3,10]", "(float32[1,3,20],float32[1,3,20])"],  the original arguments,
                                                         in --input's grammar (for reading only)
   "default_dtype": "float32",   torch.get_default_dtype() while tracing: what integer true division,
                                 Python floats and float factories give (export honours it, as
                                 --default-dtype does for other .pt files)
   "training": "train",          save(training=...), when given: "eval", "preserve" or "train";
                                 export honours it, as --training (which wins)
   "do_constant_folding": false, save(do_constant_folding=...), when given; export honours it, as
                                 --no-constant-folding / --constant-folding (which win)
   "export_modules_as_functions": true or ["__torch__.torch.nn.modules.linear.Linear", ...]}  when save()
                                 is given it: each call of those module types (true: of every type)
                                 an ONNX local function, as --export-modules-as-functions does
Default input names are forward()'s argument names, with ".i" per tuple/list element and ".key" per
dict entry (hx.0, hx.1, x.a); outputs default to output_0, output_1, ...
"""
import contextlib
import inspect
import json
import struct
import warnings
from typing import Any, Collection, Dict, List, Optional, Sequence, Tuple, Union

import torch

from ._export import ExportError, ExportWarning, convert, export, find_torch2onnx  # noqa: E402

__all__ = ["save", "SIGNATURE_FILE", "export", "convert", "ExportError", "ExportWarning", "find_torch2onnx"]

SIGNATURE_FILE = "torch2onnx_signature.json"

_DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.uint8: "uint8", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32", torch.int64: "int64",
    torch.bool: "bool", torch.complex64: "complex64", torch.complex128: "complex128",
    torch.quint8: "quint8", torch.qint8: "qint8", torch.qint32: "qint32",
}
# A quantized example is stored as its integer values (int_repr) and its grid, in the signature.
_QUANTIZED_VALUES = {torch.quint8: torch.uint8, torch.qint8: torch.int8, torch.qint32: torch.int32}
_NPY_DESCR = {
    torch.float32: "<f4", torch.float64: "<f8", torch.float16: "<f2", torch.uint8: "|u1", torch.int8: "|i1",
    torch.int16: "<i2", torch.int32: "<i4", torch.int64: "<i8", torch.bool: "|b1", torch.complex64: "<c8",
    torch.complex128: "<c16",
}


def _tensor_spec(t: torch.Tensor) -> str:
    if t.dtype not in _DTYPE_NAMES:
        raise TypeError(f"torch2onnx.save: tensors of dtype {t.dtype} cannot be graph inputs")
    return _DTYPE_NAMES[t.dtype] + "[" + ",".join(str(d) for d in t.shape) + "]"


def _npy_bytes(t: torch.Tensor) -> bytes:
    """The tensor as a .npy file (format 1.0, C order), without needing numpy; a quantized one's integer
    values."""
    t = t.detach().contiguous().cpu()
    if t.is_quantized:
        t = t.int_repr()
    shape = "(" + "".join(f"{d}, " for d in t.shape).rstrip(" ")
    shape = shape.rstrip(",") + ("," if len(t.shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (_NPY_DESCR[t.dtype], shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    if t.dtype == torch.bool:
        data = t.to(torch.uint8).numpy().tobytes() if hasattr(t, "numpy") else bytes(t.to(torch.uint8).tolist())
    else:
        data = t.numpy().tobytes()
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + data


class _Flattener:
    """Walks forward()'s arguments: tensors become graph inputs, everything else a constant."""

    def __init__(self):
        self.tensors: List[torch.Tensor] = []
        self.names: List[str] = []

    def spec(self, value: Any, name: str) -> str:
        """The value in --input's grammar, recording its tensors."""
        if isinstance(value, torch.Tensor):
            if value.is_quantized and value.qscheme() not in (torch.per_tensor_affine, torch.per_tensor_symmetric):
                raise TypeError(f"torch2onnx.save: argument {name} is quantized per channel; torch.onnx 1.13 takes a "
                                "quantized input as one scale and zero point (per tensor)")
            self.tensors.append(value)
            self.names.append(name)
            return _tensor_spec(value)
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "bool=" + ("true" if value else "false")
        if isinstance(value, int):
            return f"int={value}"
        if isinstance(value, float):
            return f"float={value!r}"
        if isinstance(value, (tuple, list)):
            return "(" + ",".join(self.spec(v, f"{name}.{i}") for i, v in enumerate(value)) + ")"
        if isinstance(value, dict):
            return "{" + ",".join(f"{k}:{self.spec(v, f'{name}.{k}')}" for k, v in value.items()) + "}"
        if isinstance(value, str):
            return "str=" + repr(value)
        raise TypeError(f"torch2onnx.save: argument {name} of type {type(value).__name__} cannot be traced")


def _rebuild(value: Any, tensors: Sequence[torch.Tensor], pos: List[int]) -> Any:
    """`value` with its tensors replaced, in order, by `tensors` (the traced graph inputs)."""
    if isinstance(value, torch.Tensor):
        t = tensors[pos[0]]
        pos[0] += 1
        return t
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # namedtuple
        return type(value)(*[_rebuild(v, tensors, pos) for v in value])
    if isinstance(value, (tuple, list)):
        return type(value)(_rebuild(v, tensors, pos) for v in value)
    if isinstance(value, dict):
        return {k: _rebuild(v, tensors, pos) for k, v in value.items()}
    return value


def _fresh(value: Any) -> Any:
    """`value` with every tensor replaced by a copy: each call save() makes gets its own, so a model
    that writes into its inputs (x.set_(y), x.add_(1)) neither changes the user's tensors nor the
    example values and specs save() records (those of the arguments as given)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # namedtuple
        return type(value)(*[_fresh(v) for v in value])
    if isinstance(value, (tuple, list)):
        return type(value)(_fresh(v) for v in value)
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    return value


def _flatten_outputs(value: Any, out: List[torch.Tensor]) -> None:
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (bool, int, float)):
        # As torch.onnx's output flattening wraps them: bool, int64 and float64 0-d tensors.
        dtype = torch.bool if isinstance(value, bool) else torch.int64 if isinstance(value, int) else torch.float64
        with warnings.catch_warnings():  # "torch.tensor results are registered as constants": they are
            warnings.simplefilter("ignore", torch.jit.TracerWarning)
            out.append(torch.tensor(value, dtype=dtype))
    elif isinstance(value, (tuple, list)):
        for v in value:
            _flatten_outputs(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _flatten_outputs(v, out)
    elif value is None:
        pass  # dropped, as torch.onnx.export does
    else:
        raise TypeError(f"torch2onnx.save: the model returns a {type(value).__name__}; "
                        "only tensors, numbers, None and tuples/lists/dicts of them can be outputs")


class _Flat(torch.nn.Module):
    """forward(*tensors): rebuilds the original arguments around the traced tensors, calls the model
    and returns its outputs flattened."""

    def __init__(self, model: torch.nn.Module, args: Tuple[Any, ...], kwargs: Dict[str, Any]):
        super().__init__()
        self.model = model
        self._args = args
        self._kwargs = kwargs
        self.eager_dtypes: List[Optional[torch.dtype]] = []  # each flattened output's, from an eager call

    def forward(self, *tensors):
        pos = [0]
        args = _rebuild(self._args, tensors, pos)
        kwargs = _rebuild(self._kwargs, tensors, pos)
        outputs: List[torch.Tensor] = []
        _flatten_outputs(self.model(*args, **kwargs), outputs)
        # Under the tracer a size is a 0-d tensor, so a number computed from sizes (x.shape[0] * 0.5)
        # arrives here as a tensor of the trace's dtype (float32) where the eager call returned a
        # Python float (float64 above): cast to the eager run's dtypes, which torch.onnx gives.
        outputs = [o.to(d) if d is not None and o.dtype != d else o
                   for o, d in zip(outputs, self.eager_dtypes + [None] * len(outputs))]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _holds(value: Any, found) -> bool:
    """Whether found(v) holds for the output or anything inside its tuples, lists and dicts."""
    if found(value):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds(v, found) for v in value)
    if isinstance(value, dict):
        return any(_holds(v, found) for v in value.values())
    return False


def _returns_numbers(value: Any) -> bool:
    """Whether an output holds Python numbers (int, float, bool)."""
    return _holds(value, lambda v: isinstance(v, (bool, int, float)))


def _returns_tensor_list(value: Any) -> bool:
    """Whether an output holds a list of tensors (a TorchScript List[Tensor]: its length may follow the
    inputs' sizes, which a trace would fix)."""
    return _holds(value, lambda v: isinstance(v, list) and any(isinstance(t, torch.Tensor) for t in v))


def _count_script_outputs(value: Any) -> int:
    """How many ONNX outputs the export of a TorchScript module makes of an output: one per tensor
    and per number, one for a list of numbers (a 1-D tensor, as torch.onnx returns a List[int])."""
    if isinstance(value, list) and value and all(isinstance(v, (bool, int, float)) for v in value):
        return 1
    if isinstance(value, (tuple, list)):
        return sum(_count_script_outputs(v) for v in value)
    if isinstance(value, dict):
        return sum(_count_script_outputs(v) for v in value.values())
    return 0 if value is None else 1


def _script_positional(model: torch.jit.ScriptModule, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[Any, ...]:
    """A TorchScript forward()'s arguments with the keyword ones put in their places (a parameter
    skipped takes its default): the saved specs are positional."""
    if not kwargs:
        return args
    params = list(model.forward.schema.arguments[1:])
    names = [a.name for a in params]
    unknown = [k for k in kwargs if k not in names[len(args):]]
    if unknown:
        raise TypeError(f"torch2onnx.save: forward() of the TorchScript module has no parameter {unknown[0]!r} "
                        f"after its {len(args)} positional argument(s) (parameters: {', '.join(names)})")
    last = max(names.index(k) for k in kwargs)
    out = list(args)
    for a in params[len(args):last + 1]:
        if a.name in kwargs:
            out.append(kwargs[a.name])
        elif a.has_default_value():
            out.append(a.default_value)
        else:
            raise TypeError(f"torch2onnx.save: forward()'s parameter {a.name!r} of the TorchScript module is not given")
    return tuple(out)


def _argument_names(model: torch.nn.Module, count: int) -> List[str]:
    if isinstance(model, torch.jit.ScriptModule):  # its forward() has a schema, not a Python signature
        try:
            names = [a.name for a in model.forward.schema.arguments[1:]]
            return [names[i] if i < len(names) else f"input_{i}" for i in range(count)]
        except (AttributeError, RuntimeError):
            pass
    try:
        params = [p for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = [p.name for p in params]
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else f"input_{i}" for i in range(count)]


def _dynamic_axes_specs(dynamic_axes: Optional[Dict[str, Any]]) -> List[str]:
    specs = []
    for name, axes in (dynamic_axes or {}).items():
        if isinstance(axes, dict):
            items = [f"{int(a)}:{n}" if n else str(int(a)) for a, n in axes.items()]
        else:
            items = [str(int(a)) for a in axes]
        specs.append(f"{name}=" + ",".join(items))
    return specs


_TRAINING_MODES = {"eval": "eval", "preserve": "preserve", "train": "train", "training": "train"}


def _training_mode(training: Any) -> Optional[str]:
    """training= as the signature records it: "eval", "preserve" or "train" (None: not given).
    Takes torch.onnx.TrainingMode values, their names and True/False (train/eval)."""
    if training is None:
        return None
    if isinstance(training, bool):
        return "train" if training else "eval"
    name = str(getattr(training, "name", training)).lower()
    if name not in _TRAINING_MODES:
        raise ValueError(f"torch2onnx.save: training={training!r} is not a training mode "
                         "(expected torch.onnx.TrainingMode.EVAL, PRESERVE or TRAINING, or 'eval', 'preserve', 'train')")
    return _TRAINING_MODES[name]


def _keep_state(model: torch.nn.Module):
    """A function that puts every module's state back as it is now: attributes forward() assigns
    (`self.x = ...`, in eager modules and in scripted ones, whose prim::SetAttr writes the C++ module)
    and tensors it changes in place. save() calls the model more than once (the eager run, the trace,
    a second trace through an autograd.Function), and each call must start from the state the model
    had when save() was called: a model whose forward() writes its attributes computes one call from
    that state, which is what the saved model must compute (torch.onnx compares its export with a copy
    of the model taken before it traces)."""
    eager, scripted, tensors = [], [], []
    params = {id(p) for p in model.parameters()}
    for m in model.modules():
        if isinstance(m, torch.jit.ScriptModule):
            try:
                named = torch._C._jit_debug_module_iterators(m._c)["named_attributes"]
            except (AttributeError, KeyError, RuntimeError):  # not this PyTorch's API: nothing to keep
                continue
            for name, value in named:
                if name != "training" and not isinstance(value, (torch.ScriptModule, torch.jit.ScriptModule)):
                    scripted.append((m._c, name, value))
                    if isinstance(value, torch.Tensor):
                        tensors.append(value)
        else:
            state = {k: v for k, v in m.__dict__.items() if k != "training"}  # the mode is _trace_mode's
            for key in ("_parameters", "_buffers", "_modules"):
                if isinstance(state.get(key), dict):
                    state[key] = dict(state[key])
            eager.append((m, state))
            tensors += [v for v in m.__dict__.values() if isinstance(v, torch.Tensor)]
            tensors += [b for b in m._buffers.values() if isinstance(b, torch.Tensor)]
    # Parameters keep their values (nothing writes them in place without autograd complaining); other
    # tensors are copied, so that in-place writes (BatchNorm's running statistics) are undone too.
    values = {id(t): (t, t.detach().clone()) for t in tensors if id(t) not in params}

    def restore():
        for m, state in eager:
            for key in [k for k in m.__dict__ if k not in state and k != "training"]:
                del m.__dict__[key]
            for key, value in state.items():
                if key in ("_parameters", "_buffers", "_modules") and isinstance(value, dict):
                    m.__dict__[key].clear()
                    m.__dict__[key].update(value)
                else:
                    m.__dict__[key] = value
        for c, name, value in scripted:
            c.setattr(name, value)
        with torch.no_grad():
            for t, saved in values.values():
                t.copy_(saved)

    return restore


@contextlib.contextmanager
def _trace_mode(model: torch.nn.Module, mode: Optional[str]):
    """The model in `mode` (eval when None; preserve leaves each module's flag) and without autograd
    while it is traced; yields a function that puts the model's state back as it was (_keep_state),
    which runs again at the end: afterwards its flags, attributes and buffers are as they were (a
    trace in training mode runs BatchNorm, which updates its running statistics)."""
    flags = [(m, m.training) for m in model.modules()]
    restore = _keep_state(model)
    if mode in (None, "eval"):
        model.eval()
    elif mode == "train":
        model.train()
    try:
        with torch.no_grad():
            yield restore
    finally:
        restore()
        for m, flag in flags:
            m.training = flag


def _module_type_names(types: Collection[type]) -> List[str]:
    """export_modules_as_functions's module classes as TorchScript names them (__torch__.a.B: what the
    saved classes are called, also for a class defined inside a function)."""
    names = []
    for t in types:
        if not (isinstance(t, type) and issubclass(t, torch.nn.Module)):
            raise TypeError(f"torch2onnx.save: export_modules_as_functions takes nn.Module classes, got {t!r}")
        names.append(torch._jit_internal._qualified_name(t))
    return sorted(names)


class _ForwardOnlyContext:
    """The ctx a torch.autograd.Function's forward() gets when save() traces its ops: what forward
    may call on ctx does nothing (no backward is ever built), other attributes are kept."""

    def __init__(self, count: int):
        self.needs_input_grad = (False,) * count
        self.saved_tensors: Tuple[torch.Tensor, ...] = ()

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def mark_dirty(self, *args):
        pass

    def mark_non_differentiable(self, *args):
        pass

    def set_materialize_grads(self, value):
        pass


def _python_ops(graph) -> List[Any]:
    """The torch.autograd.Function classes the traced graph calls (prim::PythonOp nodes), nested
    blocks included, in order of first call."""
    found: List[Any] = []

    def walk(block_nodes):
        for n in block_nodes:
            for b in n.blocks():
                walk(b.nodes())
            if n.kind() == "prim::PythonOp":
                fn = getattr(n.pyobj(), "__self__", None)  # apply, bound to the Function class
                key = fn if fn is not None else n.pyname()
                if key not in found:
                    found.append(key)
    walk(graph.nodes())
    return found


@contextlib.contextmanager
def _forward_ops(functions: Sequence[type]):
    """While it lasts, Function.apply of each class runs its forward() directly, so the tracer
    records the ops forward() is made of (torch.onnx 1.13 inlines such a Function the same way)."""
    patched = []
    for cls in functions:
        had = "apply" in cls.__dict__
        old = cls.__dict__.get("apply")

        def apply(klass, *args):
            return klass.forward(_ForwardOnlyContext(len(args)), *args)
        cls.apply = classmethod(apply)
        patched.append((cls, had, old))
    try:
        yield
    finally:
        for cls, had, old in patched:
            if had:
                cls.apply = old
            else:
                del cls.apply


def _trace(wrapper: torch.nn.Module, tensors: Tuple[torch.Tensor, ...], restore):
    """torch.jit.trace of the wrapper; a torch.autograd.Function called in forward() is traced through
    its forward()'s ops (what torch.onnx 1.13 exports for one without a symbolic()); one with a
    symbolic() is refused, naming it: torch.onnx would build its ONNX nodes by calling that Python
    method, which an export without Python cannot."""
    try:
        traced = torch.jit.trace(wrapper, _fresh(tensors), check_trace=False, strict=False)
    except RuntimeError as e:
        if "Tracer cannot set value trace" not in str(e):
            raise
        # TorchScript code called inside returns a number or a list: the tracer has no value for it
        # (torch.onnx.export fails the same way).
        raise ValueError("torch2onnx.save: the model calls TorchScript code that returns a Python number or list "
                         f"({str(e).splitlines()[0]}), which tracing cannot record; save the model scripted, "
                         "torch2onnx.save(torch.jit.script(model), ...): its TorchScript is then saved as it is, as "
                         "torch.onnx exports a ScriptModule") from None
    restore()
    functions = _python_ops(traced.inlined_graph)  # (calls of submodules inlined)
    if not functions:
        return traced
    for fn in functions:
        if not isinstance(fn, type):
            raise ValueError(f"torch2onnx.save: the model calls the Python function {fn}, which TorchScript "
                             "cannot save; write it with torch ops")
        if hasattr(fn, "symbolic"):
            raise ValueError(
                f"torch2onnx.save: torch.autograd.Function {fn.__qualname__} has a symbolic(), which torch.onnx "
                "calls to build its ONNX nodes and an export without Python cannot; in forward(), call "
                "torch2onnx_ops.symbolic(...) for that node instead (docs/guide/torch_onnx_ops.md), or remove "
                "symbolic() to export the ops of its forward()")
    with _forward_ops(functions):
        traced = torch.jit.trace(wrapper, _fresh(tensors), check_trace=False, strict=False)
    left = _python_ops(traced.inlined_graph)
    if left:
        raise ValueError(f"torch2onnx.save: the traced model still calls Python ({left[0]}), which TorchScript "
                         "cannot save")
    return traced


def save(model: torch.nn.Module, args: Any, path: str, input_names: Optional[Sequence[str]] = None,
         output_names: Optional[Sequence[str]] = None, dynamic_axes: Optional[Dict[str, Any]] = None,
         training: Any = None, do_constant_folding: Optional[bool] = None,
         export_modules_as_functions: Union[bool, Collection[type]] = False,
         dequantized_io: Optional[bool] = None) -> None:
    """Traces `model` on `args` as torch.onnx.export does and saves it to `path` as TorchScript,
    with the signature (specs, names, dynamic axes, example values) inside; see the module doc.
    training (torch.onnx.TrainingMode or "eval"/"preserve"/"train") is the mode the model is traced
    in and exported in; training and do_constant_folding are recorded only when given.
    Quantized example tensors (per tensor) are stored as their integer values and grid; the export
    takes them as torch.onnx does, (integer tensor, scale, zero point), or with dequantized_io=True
    as float32 tensors of their dequantized values (as --dequantized-io)."""
    mode = _training_mode(training)
    if do_constant_folding is not None and not isinstance(do_constant_folding, bool):
        raise TypeError(f"torch2onnx.save: do_constant_folding must be a bool, not {type(do_constant_folding).__name__}")
    if not isinstance(args, tuple):
        args = (args,)
    kwargs: Dict[str, Any] = {}
    if args and isinstance(args[-1], dict):
        kwargs = args[-1]
        args = args[:-1]
    # A TorchScript module returning Python numbers or lists (x.item(), x.tolist(), min(i, n)) cannot be
    # traced (the tracer has no value for them): it is saved as it is, as torch.onnx exports a
    # ScriptModule from its own graph. Its arguments (Python numbers baked in, as for a traced model)
    # are the saved specs; the export returns an int as a 0-d int64 tensor and a list of ints as a 1-D
    # one, as torch.onnx does. So is one returning a list of tensors: a trace would fix its length,
    # which may follow a dynamic axis (an ONNX sequence output, as torch.onnx gives). Other models are
    # traced.
    keep_script, output_count = False, 0
    if isinstance(model, torch.jit.ScriptModule):
        with _trace_mode(model, mode):  # (its state put back afterwards: the model as save() got it)
            result = model(*_fresh(args), **_fresh(kwargs))
        keep_script = _returns_numbers(result) or _returns_tensor_list(result)
        output_count = _count_script_outputs(result)
    if keep_script:
        args, kwargs = _script_positional(model, args, kwargs), {}
    flat = _Flattener()
    names = _argument_names(model, len(args))
    forward_inputs = [flat.spec(a, n) for a, n in zip(args, names)]
    forward_inputs += [flat.spec(v, k) for k, v in kwargs.items()]
    # No tensor at all (only Python numbers): the graph has no input and its outputs are constants,
    # as torch.onnx makes such a model.
    outputs: List[torch.Tensor] = []
    if keep_script:
        traced = model
    else:
        wrapper = _Flat(model, args, kwargs)
        with _trace_mode(model, mode) as restore:
            _flatten_outputs(model(*_fresh(args), **_fresh(kwargs)), outputs)
            restore()  # the trace starts from the state the model has now, as the eager run did
            wrapper.eager_dtypes = [o.dtype for o in outputs]
            traced = _trace(wrapper, tuple(flat.tensors), restore)
        output_count = len(outputs)
    # As torch.onnx: names for the first inputs (outputs) only; the rest keep their default names.
    given_in = list(input_names or [])
    if len(given_in) > len(flat.tensors):
        raise ValueError(f"torch2onnx.save: {len(given_in)} input_names for {len(flat.tensors)} graph inputs "
                         f"(the flattened tensors: {', '.join(flat.names)})")
    in_names = given_in + flat.names[len(given_in):]
    given_out = list(output_names or [])
    if len(given_out) > output_count:
        raise ValueError(f"torch2onnx.save: {len(given_out)} output_names for {output_count} outputs")
    out_names = given_out + [f"output_{i}" for i in range(len(given_out), output_count)]
    known = set(in_names) | set(out_names)
    dynamic_axes = dict(dynamic_axes or {})
    for name in list(dynamic_axes):
        if name not in known:  # as torch.onnx.export: reported, left out, and the save goes on
            warnings.warn(f"torch2onnx.save: dynamic_axes names '{name}', which is no input or output (ignored); "
                          f"valid names: {', '.join(in_names + out_names)}")
            del dynamic_axes[name]
    extra = {}
    example_files = []
    for i, t in enumerate(flat.tensors):
        example_files.append(f"torch2onnx_example_{i}.npy")
        extra[example_files[-1]] = _npy_bytes(t)
    signature = {
        "version": 1,
        # the traced module takes the flattened tensors; a TorchScript module kept as it is, its arguments
        "inputs": forward_inputs if keep_script else [_tensor_spec(t) for t in flat.tensors],
        "input_names": in_names,
        "output_names": out_names if given_out else [],
        "dynamic_axes": _dynamic_axes_specs(dynamic_axes),
        "example_inputs": example_files,
        "forward_inputs": forward_inputs,
        "default_dtype": _DTYPE_NAMES[torch.get_default_dtype()],
    }
    if mode is not None:
        signature["training"] = mode
    if do_constant_folding is not None:
        signature["do_constant_folding"] = do_constant_folding
    if any(t.is_quantized for t in flat.tensors):
        signature["example_quantization"] = [
            {"scale": float(t.q_scale()), "zero_point": int(t.q_zero_point())} if t.is_quantized else None
            for t in flat.tensors]
    if dequantized_io is not None:
        if not isinstance(dequantized_io, bool):
            raise TypeError(f"torch2onnx.save: dequantized_io must be a bool, not {type(dequantized_io).__name__}")
        signature["dequantized_io"] = dequantized_io
    if export_modules_as_functions:  # as torch.onnx.export's: True, or a set of module classes
        signature["export_modules_as_functions"] = (
            True if export_modules_as_functions is True else _module_type_names(export_modules_as_functions))
    extra[SIGNATURE_FILE] = json.dumps(signature)
    traced.save(path, _extra_files=extra)
