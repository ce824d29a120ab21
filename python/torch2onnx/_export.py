"""torch2onnx.export: torch.onnx.export(..., dynamo=True)'s call, converted by the torch2onnx program.

    import torch, torch2onnx
    batch = torch.export.Dim("batch", min=1, max=64)
    torch2onnx.export(model.eval(), (x,), "model.onnx", dynamic_shapes={"x": {0: batch}},
                      input_names=["input"], opset_version=17)

runs `torch.export.export(model, args, kwargs=kwargs, dynamic_shapes=dynamic_shapes, strict=False)` (as
torch.onnx does), saves the program with torch.export.save to a .pt2 in a private temporary directory
and runs `torch2onnx export MODEL.pt2 -o F [options]` on it (a subprocess, no shell). Two halves:
  * export(model, args, f, ...): the whole call; `model` may also be a torch.export.ExportedProgram,
    converted as it is. Returns the ExportedProgram that was converted (ep.module() runs it in PyTorch).
  * convert(pt2, f, ...): only the conversion of a saved .pt2 (needs no torch.export: it works under
    any PyTorch, or none).
Errors of torch.export and of torch2onnx raise ExportError (a RuntimeError) whose message is one line:
torch2onnx's own line without its "torch2onnx: error: " prefix (and, from export(), without the name of
the temporary .pt2 it may start with), or "torch.export.export: TYPE: first line" (the exception torch
raised is the __cause__). torch2onnx's warnings become Python warnings of category
ExportWarning (a UserWarning), pointing at the caller's line.

The torch2onnx program used is, in order: the `torch2onnx=` argument, the TORCH2ONNX environment
variable, bin/torch2onnx beside the package (an installed tree: <prefix>/lib/python3/dist-packages/
torch2onnx -> <prefix>/bin/torch2onnx; the build tree's lib/python/torch2onnx -> build/bin/torch2onnx; the
source tree's python/torch2onnx -> build/bin/torch2onnx), then `torch2onnx` on PATH.
"""
import os
import shutil
import subprocess
import tempfile
import warnings
from typing import Any, Collection, Dict, List, Optional, Sequence, Union

__all__ = ["export", "convert", "ExportError", "ExportWarning", "find_torch2onnx"]

_ERROR_PREFIX = "torch2onnx: error: "
_WARNING_PREFIX = "torch2onnx: warning: "

PathLike = Union[str, "os.PathLike[str]"]


class ExportError(RuntimeError):
    """torch.export or torch2onnx refused the model. str(e) is one line; for torch2onnx's errors
    `returncode` is its exit status (1: the model, 2: a usage mistake) and `stderr` all it printed;
    for torch.export's, the exception it raised is e.__cause__ (returncode None)."""

    def __init__(self, message: str, returncode: Optional[int] = None, stderr: str = ""):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class ExportWarning(UserWarning):
    """A warning torch2onnx printed while converting (its "torch2onnx: warning: " line, without the prefix)."""


def _first_line(text: str) -> str:
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def _candidates_beside_package() -> List[str]:
    """bin/torch2onnx of the trees the package may lie in: installed (<prefix>/lib/pythonX/dist-packages/
    torch2onnx, three or four levels below <prefix>), the build tree (build/lib/python/torch2onnx) and
    the source tree (python/torch2onnx, whose build is build/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    parent = here
    for _ in range(4):
        parent = os.path.dirname(parent)
        found.append(os.path.join(parent, "bin", "torch2onnx"))
    repo = os.path.dirname(os.path.dirname(here))
    if os.path.basename(os.path.dirname(here)) == "python" and os.path.isfile(os.path.join(repo, "CMakeLists.txt")):
        found.append(os.path.join(repo, "build", "bin", "torch2onnx"))
    return found


def _is_program(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_torch2onnx(torch2onnx: Optional[PathLike] = None) -> str:
    """The torch2onnx program export() and convert() run: `torch2onnx` when given, else $TORCH2ONNX,
    else bin/torch2onnx beside the package, else `torch2onnx` on PATH. ExportError when there is none
    (or the one named is not an executable file)."""
    if torch2onnx is not None:
        path = os.fspath(torch2onnx)
        if not _is_program(path):
            raise ExportError(f"torch2onnx={path!r} is not an executable file")
        return path
    env = os.environ.get("TORCH2ONNX")
    if env:
        if not _is_program(env):
            raise ExportError(f"TORCH2ONNX={env!r} is not an executable file")
        return env
    beside = _candidates_beside_package()
    for path in beside:
        if _is_program(path):
            return path
    on_path = shutil.which("torch2onnx")
    if on_path:
        return on_path
    raise ExportError("no torch2onnx program: not given (torch2onnx=), not in $TORCH2ONNX, not beside the "
                      f"package ({', '.join(beside)}) and not on PATH")


def _names(value: Optional[Sequence[str]], what: str) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, str):
        raise TypeError(f"torch2onnx.export: {what} is a list of names, not a str")
    names = [str(n) for n in value]
    for n in names:
        if not n or "," in n:
            raise ValueError(f"torch2onnx.export: {what} holds {n!r}; a name is not empty and has no comma")
    return ",".join(names)


def _module_type_names(types: Collection[Any]) -> List[str]:
    """export_modules_as_functions's classes as torch.typename names them (module.QualName), what
    --export-modules-as-functions=TYPE,... takes; strings are passed as they are."""
    names = []
    for t in types:
        if isinstance(t, str):
            names.append(t)
        elif isinstance(t, type):
            names.append(f"{t.__module__}.{t.__qualname__}")
        else:
            raise TypeError(f"torch2onnx.export: export_modules_as_functions takes module classes, got {t!r}")
    return sorted(names)


def _command(exe: str, pt2: PathLike, f: PathLike, input_names=None, output_names=None, opset_version=None,
             external_data=False, export_modules_as_functions=False) -> List[str]:
    """The argument list of the torch2onnx run (no shell). Paths are made absolute, so a file name
    starting with '-' is never taken for an option."""
    cmd = [exe, "export", os.path.abspath(os.fspath(pt2)), "-o", os.path.abspath(os.fspath(f))]
    if opset_version is not None:
        if isinstance(opset_version, bool) or not isinstance(opset_version, int):
            raise TypeError(f"torch2onnx.export: opset_version must be an int, not {type(opset_version).__name__}")
        cmd += ["--opset", str(opset_version)]
    names = _names(input_names, "input_names")
    if names is not None:
        cmd += ["--input-names", names]
    names = _names(output_names, "output_names")
    if names is not None:
        cmd += ["--output-names", names]
    if external_data:
        cmd.append("--external-data")
    if export_modules_as_functions is True:
        cmd.append("--export-modules-as-functions")
    elif export_modules_as_functions:  # as torch.onnx: a set of module classes
        cmd.append("--export-modules-as-functions=" + ",".join(_module_type_names(export_modules_as_functions)))
    return cmd


def _run(cmd: List[str], stacklevel: int, hidden_path: Optional[str] = None) -> None:
    """Runs torch2onnx; its warning lines become ExportWarnings, its error line an ExportError.
    hidden_path: a file of ours (export()'s temporary .pt2) whose name is left out of the error line."""
    try:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, errors="replace")
    except OSError as e:
        raise ExportError(f"cannot run {cmd[0]}: {e.strerror or e}") from None
    error = None
    for line in done.stderr.splitlines():
        if line.startswith(_WARNING_PREFIX):
            warnings.warn(line[len(_WARNING_PREFIX):], ExportWarning, stacklevel=stacklevel + 1)
        elif line.startswith(_ERROR_PREFIX) and error is None:
            error = line[len(_ERROR_PREFIX):]
    if done.returncode != 0:
        if error is None:  # no line of its own: a crash or a signal
            how = (f"was killed by signal {-done.returncode}" if done.returncode < 0
                   else f"exited with status {done.returncode}")
            last = _first_line("\n".join(reversed(done.stderr.splitlines())))
            error = f"{cmd[0]} {how}" + (f": {last}" if last else "")
        elif hidden_path and error.startswith(hidden_path + ": "):
            error = error[len(hidden_path) + 2:]  # the temporary .pt2, gone when the caller reads it
        raise ExportError(error, done.returncode, done.stderr)


def _check_path(f) -> None:
    if not isinstance(f, (str, os.PathLike)):
        raise TypeError(f"torch2onnx.export: f is a path (str or os.PathLike), not {type(f).__name__}")


def _convert(pt2, f, stacklevel, torch2onnx=None, hide_pt2=False, **options) -> None:
    _check_path(f)
    exe = find_torch2onnx(torch2onnx)
    cmd = _command(exe, pt2, f, **options)
    _run(cmd, stacklevel + 1, cmd[2] if hide_pt2 else None)


def convert(pt2: PathLike, f: PathLike, *, input_names: Optional[Sequence[str]] = None,
            output_names: Optional[Sequence[str]] = None, opset_version: Optional[int] = None,
            external_data: bool = False, export_modules_as_functions: Union[bool, Collection[Any]] = False,
            torch2onnx: Optional[PathLike] = None) -> None:
    """Converts the program saved by torch.export.save at `pt2` to ONNX at `f`: export()'s second half,
    `torch2onnx export PT2 -o F` with the options export() takes. Needs no torch.export (any PyTorch)."""
    _convert(pt2, f, 2, torch2onnx=torch2onnx, input_names=input_names, output_names=output_names,
             opset_version=opset_version, external_data=external_data,
             export_modules_as_functions=export_modules_as_functions)


def _exported_program_type():
    import torch
    export_module = getattr(torch, "export", None)
    if export_module is None or not hasattr(export_module, "ExportedProgram"):
        raise ExportError(f"torch.export is not available in PyTorch {torch.__version__} (2.x is needed; "
                          "torch2onnx.save writes a TorchScript model for older versions)")
    return export_module.ExportedProgram


def export(model: Any, args: Any, f: PathLike, *, kwargs: Optional[Dict[str, Any]] = None,
           dynamic_shapes: Any = None, input_names: Optional[Sequence[str]] = None,
           output_names: Optional[Sequence[str]] = None, opset_version: Optional[int] = None,
           external_data: bool = False, export_modules_as_functions: Union[bool, Collection[Any]] = False,
           torch2onnx: Optional[PathLike] = None):
    """Exports `model` to ONNX at `f` as torch.onnx.export(model, args, f, dynamo=True, ...) does, the
    conversion done by the torch2onnx program; see the module doc. Returns the ExportedProgram converted.

    model: an nn.Module, exported by torch.export.export(model, args, kwargs=kwargs,
        dynamic_shapes=dynamic_shapes, strict=False) in the mode it is in (a warning when training);
        or a torch.export.ExportedProgram, converted as it is (args and kwargs are then not used).
    args: a tuple of forward()'s positional arguments (anything else is one argument); a dict as its
        last element holds the keyword arguments when `kwargs` is not given, as torch.onnx takes it.
    dynamic_shapes: torch.export's (torch.export.Dim per dynamic axis, by argument name or position).
    input_names, output_names: the graph's names for the first flattened inputs / outputs
        (--input-names, --output-names); default: the program's own.
    opset_version: the ONNX opset (--opset); default: torch2onnx's (17).
    external_data: the weights in F.data beside the model (--external-data).
    export_modules_as_functions: True (every module type) or a set of nn.Module classes: each call an
        ONNX local function (--export-modules-as-functions).
    torch2onnx: the torch2onnx program to run (default: find_torch2onnx()).
    """
    _check_path(f)
    options = dict(input_names=input_names, output_names=output_names, opset_version=opset_version,
                   external_data=external_data, export_modules_as_functions=export_modules_as_functions)
    _command("torch2onnx", "model.pt2", f, **options)  # the options' mistakes before torch.export runs
    ep_type = _exported_program_type()
    if isinstance(model, ep_type):
        if dynamic_shapes is not None:
            raise ValueError("torch2onnx.export: dynamic_shapes cannot change an ExportedProgram (its dims are "
                             "fixed when torch.export.export makes it)")
        program = model
    else:
        import torch
        if not isinstance(model, torch.nn.Module):
            raise TypeError("torch2onnx.export: model is an nn.Module or a torch.export.ExportedProgram, not "
                            f"{type(model).__name__}")
        if args is None:
            args = ()
        if not isinstance(args, tuple):
            args = (args,)
        if not kwargs and args and isinstance(args[-1], dict):
            kwargs = args[-1]
            args = args[:-1]
        if model.training:
            warnings.warn("torch2onnx.export: the model is in training mode (Dropout, BatchNorm's batch "
                          "statistics); call model.eval() before export for inference", UserWarning, stacklevel=2)
        try:
            program = torch.export.export(model, args, kwargs=kwargs, dynamic_shapes=dynamic_shapes, strict=False)
        except Exception as e:
            raise ExportError(f"torch.export.export: {type(e).__name__}: {_first_line(e) or 'failed'}") from e
    find_torch2onnx(torch2onnx)  # before saving: a missing program is said first
    with tempfile.TemporaryDirectory(prefix="torch2onnx-") as tmp:
        pt2 = os.path.join(tmp, "model.pt2")
        import torch
        try:
            torch.export.save(program, pt2)
        except Exception as e:
            raise ExportError(f"torch.export.save: {type(e).__name__}: {_first_line(e) or 'failed'}") from e
        _convert(pt2, f, 2, torch2onnx=torch2onnx, hide_pt2=True, **options)
    return program
