# plumb framework probe: reports what this interpreter can import and how it is built, as one
# JSON line after a marker. Read-only apart from initialising the CUDA driver in its own process
# (PyTorch's device checks, which create no context; JAX is imported but asked for no backend).
import os
import sys
import time

# The current directory must not shadow installed packages (python -c puts '' first).
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]

# Libraries that print to stdout (C or Python) must not corrupt the answer: send fd 1 to stderr
# and keep a private copy of the real stdout for the final line.
try:
    _answer = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
except Exception:
    _answer = sys.__stdout__

ENV_KEYS = (
    "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_NO_CUDA_MEMORY_CACHING", "CUBLAS_WORKSPACE_CONFIG", "CUDA_LAUNCH_BLOCKING",
    "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_MODULE_LOADING",
    "CUDA_DEVICE_ORDER", "TORCH_CUDNN_V8_API_ENABLED", "NVIDIA_TF32_OVERRIDE", "TF_DETERMINISTIC_OPS",
    "TF_CUDNN_DETERMINISTIC", "TORCH_USE_CUDA_DSA", "PYTHONHASHSEED", "LD_LIBRARY_PATH", "VIRTUAL_ENV",
    "CONDA_PREFIX", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
)

out = {
    "probe": 1,
    "python": {"executable": sys.executable, "version": "%d.%d.%d" % tuple(sys.version_info[:3])},
    "env": dict((k, os.environ[k]) for k in ENV_KEYS if k in os.environ),
    "packages": {},
}


# The answer's encoder: the json module would import re, enum and more (5-10 ms of the probe on a
# Python whose start does not load them already). Keys sorted, ASCII only, like json.dumps with
# sort_keys=True; a non-finite float becomes null (strict JSON).
_ESCAPES = dict((i, "\\u%04x" % i) for i in list(range(32)) + [127])
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t",
                 ord("\b"): "\\b", ord("\f"): "\\f"})


def _str(s):
    s = s.translate(_ESCAPES)
    try:
        s.encode("ascii")
    except UnicodeError:
        parts = []
        for ch in s:
            c = ord(ch)
            if c < 128:
                parts.append(ch)
            elif c < 0x10000:
                parts.append("\\u%04x" % c)
            else:
                c -= 0x10000
                parts.append("\\u%04x\\u%04x" % (0xD800 | (c >> 10), 0xDC00 | (c & 0x3FF)))
        s = "".join(parts)
    return '"' + s + '"'


def encode(x):
    if isinstance(x, Raw):
        return str(x)
    if x is None or x is True or x is False:
        return {None: "null", True: "true", False: "false"}[x]
    if isinstance(x, int):
        return str(int(x))
    if isinstance(x, float):
        return repr(x) if x == x and x not in (float("inf"), float("-inf")) else "null"
    if isinstance(x, dict):
        return "{" + ", ".join(_str(str(k)) + ": " + encode(x[k]) for k in sorted(x, key=str)) + "}"
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(encode(v) for v in x) + "]"
    return _str(x if isinstance(x, str) else str(x))


def safe(fn, default=None):
    try:
        return fn()
    except Exception:
        return default


def dotted(v):
    # (9, 1, 0) -> "9.1.0"; 90100 / 8907 -> "9.1.0" / "8.9.7"; None stays None.
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        return ".".join(str(x) for x in v)
    if isinstance(v, int):
        if v >= 10000:
            return "%d.%d.%d" % (v // 10000, (v % 10000) // 100, v % 100)
        return "%d.%d.%d" % (v // 1000, (v % 1000) // 100, v % 100)
    return str(v)


def probe_torch():
    import torch
    import warnings
    d = {"version": str(torch.__version__)}
    ver = getattr(torch, "version", None)
    d["cuda"] = getattr(ver, "cuda", None)
    d["hip"] = getattr(ver, "hip", None)
    cudnn = torch.backends.cudnn
    c = getattr(torch._C, "_cudnn", None)
    d["cudnn_compiled"] = dotted(safe(lambda: c.getCompileVersion())) if c is not None else None
    d["cudnn_runtime"] = dotted(safe(lambda: c.getRuntimeVersion())) if c is not None else None
    d["cudnn_enabled"] = safe(lambda: bool(cudnn.enabled))
    d["cudnn_benchmark"] = safe(lambda: bool(cudnn.benchmark))
    d["cudnn_deterministic"] = safe(lambda: bool(cudnn.deterministic))
    d["tf32_cudnn"] = safe(lambda: bool(cudnn.allow_tf32))
    d["tf32_matmul"] = safe(lambda: bool(torch.backends.cuda.matmul.allow_tf32))
    d["float32_matmul_precision"] = safe(lambda: str(torch.get_float32_matmul_precision()), "")
    d["deterministic_algorithms"] = safe(lambda: bool(torch.are_deterministic_algorithms_enabled()))
    if d["cuda"] is None and d["hip"] is None:
        d["cuda_available"] = safe(lambda: bool(torch.cuda.is_available()), False)
        return d
    d["nccl"] = safe(lambda: dotted(torch.cuda.nccl.version()))
    d["arch_list"] = safe(lambda: list(torch.cuda.get_arch_list()), [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            d["cuda_available"] = bool(torch.cuda.is_available())
            d["device_count"] = int(torch.cuda.device_count())
        except Exception as e:
            d["cuda_available"] = False
            d["cuda_warning"] = "%s: %s" % (type(e).__name__, e)
    said = [str(w.message).strip() for w in caught]
    if said and not d.get("cuda_warning"):
        d["cuda_warning"] = said[0].splitlines()[0][:400]
    devices = []
    if d.get("cuda_available"):
        for i in range(d.get("device_count") or 0):
            p = safe(lambda: torch.cuda.get_device_properties(i))
            if p is None:
                continue
            devices.append({"name": str(p.name), "capability": "%d.%d" % (p.major, p.minor),
                            "total_memory_bytes": int(p.total_memory)})
    d["devices"] = devices
    d["mapped_libs"] = safe(mapped_cuda_libs, [])
    return d


def mapped_cuda_libs():
    # The cuDNN/NCCL copies this interpreter mapped once torch is imported and CUDA checked, each
    # asked for its own version. RTLD_NOLOAD: only an already loaded copy answers, nothing new loads.
    libs = []
    try:
        with open("/proc/self/maps") as f:  # the interpreter's own maps (host reads go under --root)
            text = f.read()
    except Exception:
        return libs
    import ctypes
    seen = set()
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 6 or not parts[5].startswith("/"):
            continue
        path = parts[5].strip()
        deleted = path.endswith(" (deleted)")
        if deleted:
            path = path[:-len(" (deleted)")]
        base = os.path.basename(path)
        kind = "nccl" if base.startswith("libnccl.so") else ("cudnn" if base.startswith("libcudnn.so") else None)
        if kind is None or path in seen:
            continue
        seen.add(path)
        d = {"lib": kind, "path": path, "deleted": deleted}
        try:
            h = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
            if kind == "nccl":
                v = ctypes.c_int(0)
                if h.ncclGetVersion(ctypes.byref(v)) == 0:
                    d["raw_version"] = int(v.value)
            else:
                h.cudnnGetVersion.restype = ctypes.c_size_t
                d["raw_version"] = int(h.cudnnGetVersion())
        except Exception as e:
            d["error"] = ("%s: %s" % (type(e).__name__, e))[:200]
        libs.append(d)
    return libs


def probe_tensorflow():
    import tensorflow as tf
    d = {"version": str(tf.__version__)}
    d["built_with_cuda"] = safe(lambda: bool(tf.test.is_built_with_cuda()))
    info = safe(lambda: dict(tf.sysconfig.get_build_info()), {})
    d["cuda"] = info.get("cuda_version")
    d["cudnn"] = info.get("cudnn_version")
    d["gpus"] = safe(lambda: [str(x.name) for x in tf.config.list_physical_devices("GPU")], [])
    return d


def probe_jax():
    # Importing jax checks that jaxlib fits it and initialises no backend. Asking for devices
    # (jax.devices(), jax.default_backend()) would start XLA's client on every GPU: a context per
    # GPU in this process and seconds of start-up. The accelerator plugins installed beside jax
    # (jax-cuda12-plugin, jax-cuda13-pjrt, jax-rocm*-plugin, libtpu) say which backends it can use.
    import jax
    d = {"version": str(jax.__version__)}
    d["jaxlib"] = safe(lambda: str(__import__("jaxlib").__version__), "")
    d["plugins"] = safe(lambda: installed_dists(("jax_cuda", "jax_rocm", "libtpu")), [])
    return d


def installed_dists(prefixes):
    # "name version" of each installed distribution whose normalised name starts with one of
    # prefixes, from the dist-info folder names on sys.path ("jax_cuda13_plugin-0.11.2.dist-info";
    # PEP 427 / the packaging specification's recording-installed-packages), first copy of a name.
    found = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for n in names:
            if not n.endswith(".dist-info") or not n.lower().startswith(prefixes):
                continue
            name, _, version = n[:-len(".dist-info")].partition("-")
            key = name.lower().replace("_", "-")
            if version and key not in found:
                found[key] = version
    return ["%s %s" % (k, found[k]) for k in sorted(found)]


def probe_onnxruntime():
    import onnxruntime as ort
    return {"version": str(ort.__version__), "device": safe(lambda: str(ort.get_device()), ""),
            "providers": safe(lambda: [str(p) for p in ort.get_available_providers()], [])}


def probe_numpy():
    import numpy
    return {"version": str(numpy.__version__)}


# HDF5 filter ids: built-in (H5Zpublic.h) and registered plugins (hdfgroup.org filter registry).
H5_FILTERS = (("deflate", 1), ("shuffle", 2), ("fletcher32", 3), ("szip", 4), ("nbit", 5),
              ("scaleoffset", 6), ("bzip2", 307), ("lzf", 32000), ("blosc", 32001), ("lz4", 32004),
              ("bitshuffle", 32008), ("zstd", 32015), ("blosc2", 32026))


def probe_h5py():
    import h5py
    d = {"version": str(h5py.__version__), "hdf5_version": str(h5py.version.hdf5_version)}
    safe(lambda: __import__("hdf5plugin"))  # registers extra filters when installed
    d["filters"] = dict((name, bool(safe(lambda: h5py.h5z.filter_avail(fid), False))) for name, fid in H5_FILTERS)
    return d


def run(probes):
    done = {}
    for name, fn in probes:
        start = time.time()
        try:
            d = fn()
            d["ok"] = True
        except ImportError as e:
            missing = type(e).__name__ == "ModuleNotFoundError" and getattr(e, "name", None) == name
            d = {"ok": False, "not_installed": bool(missing), "error": ("%s: %s" % (type(e).__name__, e))[:400]}
        except BaseException as e:  # a broken package must not hide the others
            d = {"ok": False, "not_installed": False, "error": ("%s: %s" % (type(e).__name__, e))[:400]}
        d["seconds"] = round(time.time() - start, 3)
        done[name] = d
    return done


def side_in_worker(probes):
    # Runs probes in a forked copy of this interpreter, forked before any package is imported (one
    # thread, nothing loaded), so that they overlap the main process's own: the probe then takes
    # the longer of the two, not the sum. Returns (read end, pid), or None where fork fails.
    try:
        r, w = os.pipe()
        pid = os.fork()
    except Exception:
        return None
    if pid == 0:
        try:
            os.close(r)
            data = encode(run(probes)).encode("ascii")
            while data:
                data = data[os.write(w, data):]
        finally:
            os._exit(0)
    os.close(w)
    return r, pid


def side_answer(worker, probes):
    # The worker's answer (JSON text), or one error per package when it ended without one.
    r, pid = worker
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    text = b"".join(chunks).decode("ascii", "replace")
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and text.startswith("{") and text.endswith("}"):
        return text
    why = ("killed by signal %d" % os.WTERMSIG(status)) if os.WIFSIGNALED(status) else (
        "exit code %d" % os.WEXITSTATUS(status))
    err = "the probe's worker process ended without an answer (%s)" % why
    return encode(dict((name, {"ok": False, "not_installed": False, "error": err, "seconds": 0.0})
                       for name, _ in probes))


def merged(*objects):
    # JSON objects' texts as one object: the members of each, in turn.
    inner = [o.strip()[1:-1].strip() for o in objects]
    return Raw("{" + ", ".join(x for x in inner if x) + "}")


class Raw(str):
    """Text that is JSON already (the worker's answer): encode() writes it unchanged."""


def any_installed(probes):
    try:
        from importlib.util import find_spec
        return any(safe(lambda: find_spec(name) is not None, True) for name, _ in probes)
    except Exception:
        return True


# PyTorch, the import the check cannot do without, runs here with numpy (which it imports itself);
# the other frameworks in the worker, when one of them is installed.
MAIN = (("numpy", probe_numpy), ("torch", probe_torch))
SIDE = (("tensorflow", probe_tensorflow), ("jax", probe_jax), ("onnxruntime", probe_onnxruntime),
        ("h5py", probe_h5py))

worker = side_in_worker(SIDE) if any_installed(SIDE) else None
main_done = encode(run(MAIN))
out["packages"] = merged(main_done, side_answer(worker, SIDE) if worker else encode(run(SIDE)))

_answer.write("PLUMB-PROBE-JSON " + encode(out) + "\n")
_answer.flush()
