// ONNX Runtime C API loader. OrtApi is a struct of function pointers only, so an entry is read
// by its position; the positions below are those of include/onnxruntime/core/session/
// onnxruntime_c_api.h (API version 1, unchanged in every later version, which only appends).
// On Linux ORT_API_CALL is the default calling convention and OrtStatus* is the return of every
// ORT_API2_STATUS entry (nullptr on success).
#include "vendor/onnxruntime.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "vendor/dynlib.h"

namespace plumb::ort {

namespace {

// Positions in OrtApi.
enum Entry : int {
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSession = 7,
  kRun = 9,
  kCreateSessionOptions = 10,
  kSetSessionExecutionMode = 13,
  kSetSessionGraphOptimizationLevel = 23,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kSessionGetInputCount = 30,
  kSessionGetOutputCount = 31,
  kSessionGetInputTypeInfo = 33,
  kSessionGetOutputTypeInfo = 34,
  kSessionGetInputName = 36,
  kSessionGetOutputName = 37,
  kCreateTensorAsOrtValue = 48,
  kGetTensorMutableData = 51,
  kCastTypeInfoToTensorInfo = 55,
  kGetOnnxTypeFromTypeInfo = 56,
  kGetTensorElementType = 60,
  kGetDimensionsCount = 61,
  kGetDimensions = 62,
  kGetTensorShapeElementCount = 64,
  kGetTensorTypeAndShape = 65,
  kAllocatorFree = 76,
  kGetAllocatorWithDefaultOptions = 78,
  kReleaseEnv = 92,
  kReleaseStatus = 93,
  kReleaseSession = 95,
  kReleaseValue = 96,
  kReleaseTypeInfo = 98,
  kReleaseTensorTypeAndShapeInfo = 99,
  kReleaseSessionOptions = 100,
};

// OrtApiBase: { const OrtApi* GetApi(uint32_t version); const char* GetVersionString(void); }
struct ApiBase {
  void* const* (*get_api)(std::uint32_t);
  const char* (*get_version_string)();
};

using Status = void*;

template <class F>
F fn(void* const* api, Entry e) {
  return reinterpret_cast<F>(api[e]);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): a C function table
}

}  // namespace

int element_size(int type) {
  switch (type) {
    case kFloat: case kInt32: case kUint32: return 4;
    case kUint8: case kInt8: case kBool: return 1;
    case kUint16: case kInt16: case kFloat16: case kBfloat16: return 2;
    case kInt64: case kDouble: case kUint64: case kComplex64: return 8;
    case kComplex128: return 16;
    default: return 0;
  }
}

std::string element_descr(int type) {
  switch (type) {
    case kFloat: return "<f4";
    case kDouble: return "<f8";
    case kFloat16: return "<f2";
    case kInt8: return "|i1";
    case kUint8: return "|u1";
    case kInt16: return "<i2";
    case kUint16: return "<u2";
    case kInt32: return "<i4";
    case kUint32: return "<u4";
    case kInt64: return "<i8";
    case kUint64: return "<u8";
    case kBool: return "|b1";
    case kComplex64: return "<c8";
    case kComplex128: return "<c16";
    default: return "";
  }
}

std::string element_name(int type) {
  static const char* names[] = {"undefined", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
                                "bool", "float16", "float64", "uint32", "uint64", "complex64", "complex128", "bfloat16"};
  return type >= 0 && type <= 16 ? names[type] : "type " + std::to_string(type);
}

std::string Runtime::status_message(void* status) const {
  if (status == nullptr) return {};
  std::string m = fn<const char* (*)(const void*)>(api, kGetErrorMessage)(status);
  fn<void (*)(void*)>(api, kReleaseStatus)(status);
  return m;
}

Result<std::shared_ptr<Runtime>> Runtime::load(const std::string& path) {
  static std::mutex mu;
  static std::shared_ptr<Runtime> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (loaded) return loaded;
  std::string p = path;
  if (p.empty()) {
    const char* env = std::getenv("PLUMB_ORT_LIB");  // NOLINT(concurrency-mt-unsafe): read before threads start
    if (env != nullptr && *env != '\0') p = env;
  }
  auto lib = p.empty() ? dynlib::open_first({"libonnxruntime.so.1", "libonnxruntime.so"}) : dynlib::open(p);
  if (!lib) return lib.error();
  using GetApiBase = const ApiBase* (*)();
  GetApiBase get_base = nullptr;
  if (dynlib::resolve(*lib, get_base, {"OrtGetApiBase"}) < 0) {
    return make_error(ErrorKind::unsupported, lib->name + " does not export OrtGetApiBase (not ONNX Runtime)");
  }
  const ApiBase* base = get_base();
  if (base == nullptr || base->get_api == nullptr) return make_error(ErrorKind::unsupported, lib->name + ": OrtGetApiBase returned nothing");
  auto rt = std::shared_ptr<Runtime>(new Runtime());
  rt->library_ = lib->name;
  rt->version_ = base->get_version_string != nullptr ? base->get_version_string() : "";
  rt->api = base->get_api(kOrtApiVersion);
  if (rt->api == nullptr) {
    return make_error(ErrorKind::unsupported, lib->name + " (ONNX Runtime " + rt->version_ + ") does not offer C API version " +
                                                  std::to_string(kOrtApiVersion));
  }
  // ORT_LOGGING_LEVEL_ERROR (3): warnings about unused initialisers would clutter plumb's output.
  Status st = fn<Status (*)(int, const char*, void**)>(rt->api, kCreateEnv)(3, "plumb", &rt->env);
  if (st != nullptr) return make_error(ErrorKind::io, "OrtApi::CreateEnv: " + rt->status_message(st));
  loaded = rt;
  return loaded;
}

namespace {

// Describes one input or output from its OrtTypeInfo.
Result<TensorInfo> describe(const Runtime& rt, void* type_info) {
  TensorInfo t;
  auto* api = rt.api;
  int onnx_type = 0;
  Status st = fn<Status (*)(const void*, int*)>(api, kGetOnnxTypeFromTypeInfo)(type_info, &onnx_type);
  if (st != nullptr) return make_error(ErrorKind::io, rt.status_message(st));
  if (onnx_type != 1) {  // ONNX_TYPE_TENSOR
    t.is_tensor = false;
    return t;
  }
  const void* info = nullptr;
  st = fn<Status (*)(const void*, const void**)>(api, kCastTypeInfoToTensorInfo)(type_info, &info);
  if (st != nullptr || info == nullptr) return make_error(ErrorKind::io, rt.status_message(st));
  st = fn<Status (*)(const void*, int*)>(api, kGetTensorElementType)(info, &t.type);
  if (st != nullptr) return make_error(ErrorKind::io, rt.status_message(st));
  std::size_t n = 0;
  st = fn<Status (*)(const void*, std::size_t*)>(api, kGetDimensionsCount)(info, &n);
  if (st != nullptr) return make_error(ErrorKind::io, rt.status_message(st));
  if (n > 64) return make_error(ErrorKind::invalid, "tensor with " + std::to_string(n) + " dimensions");
  t.dims.resize(n);
  st = fn<Status (*)(const void*, std::int64_t*, std::size_t)>(api, kGetDimensions)(info, t.dims.data(), n);
  if (st != nullptr) return make_error(ErrorKind::io, rt.status_message(st));
  return t;
}

}  // namespace

Result<std::shared_ptr<Session>> Runtime::open(const std::string& model, const SessionSettings& s) const {
  void* opts = nullptr;
  Status st = fn<Status (*)(void**)>(api, kCreateSessionOptions)(&opts);
  if (st != nullptr) return make_error(ErrorKind::io, "CreateSessionOptions: " + status_message(st));
  auto release_opts = [&] { fn<void (*)(void*)>(api, kReleaseSessionOptions)(opts); };
  auto fail = [&](const std::string& what, Status status) {
    std::string m = what + ": " + status_message(status);
    release_opts();
    return make_error(ErrorKind::io, m);
  };
  if ((st = fn<Status (*)(void*, int)>(api, kSetIntraOpNumThreads)(opts, s.intra_op_threads))) return fail("SetIntraOpNumThreads", st);
  if ((st = fn<Status (*)(void*, int)>(api, kSetInterOpNumThreads)(opts, s.inter_op_threads))) return fail("SetInterOpNumThreads", st);
  if ((st = fn<Status (*)(void*, int)>(api, kSetSessionExecutionMode)(opts, s.parallel ? 1 : 0))) return fail("SetSessionExecutionMode", st);
  if ((st = fn<Status (*)(void*, int)>(api, kSetSessionGraphOptimizationLevel)(opts, s.graph_optimization))) {
    return fail("SetSessionGraphOptimizationLevel", st);
  }
  auto sess = std::shared_ptr<Session>(new Session());
  sess->rt_ = this;
  st = fn<Status (*)(void*, const char*, const void*, void**)>(api, kCreateSession)(env, model.c_str(), opts, &sess->session_);
  if (st != nullptr) return fail("CreateSession(" + model + ")", st);
  release_opts();
  void* alloc = nullptr;
  if ((st = fn<Status (*)(void**)>(api, kGetAllocatorWithDefaultOptions)(&alloc))) return make_error(ErrorKind::io, status_message(st));
  for (int out = 0; out < 2; ++out) {
    std::size_t count = 0;
    st = fn<Status (*)(const void*, std::size_t*)>(api, out ? kSessionGetOutputCount : kSessionGetInputCount)(sess->session_, &count);
    if (st != nullptr) return make_error(ErrorKind::io, status_message(st));
    if (count > 4096) return make_error(ErrorKind::invalid, model + ": " + std::to_string(count) + " inputs or outputs");
    for (std::size_t i = 0; i < count; ++i) {
      void* ti = nullptr;
      st = fn<Status (*)(const void*, std::size_t, void**)>(api, out ? kSessionGetOutputTypeInfo : kSessionGetInputTypeInfo)(sess->session_, i, &ti);
      if (st != nullptr) return make_error(ErrorKind::io, status_message(st));
      auto info = describe(*this, ti);
      fn<void (*)(void*)>(api, kReleaseTypeInfo)(ti);
      if (!info) return info.error();
      char* name = nullptr;
      st = fn<Status (*)(const void*, std::size_t, void*, char**)>(api, out ? kSessionGetOutputName : kSessionGetInputName)(sess->session_, i, alloc, &name);
      if (st != nullptr) return make_error(ErrorKind::io, status_message(st));
      info->name = name != nullptr ? name : "";
      if (name != nullptr) (void)fn<Status (*)(void*, void*)>(api, kAllocatorFree)(alloc, name);
      (out ? sess->outputs_ : sess->inputs_).push_back(std::move(info.value()));
    }
  }
  return sess;
}

Session::~Session() {
  release_prepared();
  if (session_ != nullptr && rt_ != nullptr) fn<void (*)(void*)>(rt_->api, kReleaseSession)(session_);
}

void Session::release_prepared() {
  if (rt_ == nullptr) return;
  for (void* v : prepared_) {
    if (v != nullptr) fn<void (*)(void*)>(rt_->api, kReleaseValue)(v);
  }
  prepared_.clear();
}

Result<bool> Session::prepare(const std::vector<Tensor>& inputs) {
  release_prepared();
  auto* api = rt_->api;
  void* alloc = nullptr;
  if (Status st = fn<Status (*)(void**)>(api, kGetAllocatorWithDefaultOptions)(&alloc)) return make_error(ErrorKind::io, rt_->status_message(st));
  for (const auto& t : inputs) {
    void* value = nullptr;
    Status st = fn<Status (*)(void*, const std::int64_t*, std::size_t, int, void**)>(api, kCreateTensorAsOrtValue)(
        alloc, t.shape.data(), t.shape.size(), t.type, &value);
    if (st != nullptr) return make_error(ErrorKind::io, "CreateTensorAsOrtValue: " + rt_->status_message(st));
    prepared_.push_back(value);
    void* data = nullptr;
    st = fn<Status (*)(void*, void**)>(api, kGetTensorMutableData)(value, &data);
    if (st != nullptr) return make_error(ErrorKind::io, "GetTensorMutableData: " + rt_->status_message(st));
    if (!t.bytes.empty()) std::memcpy(data, t.bytes.data(), t.bytes.size());
  }
  return true;
}

namespace {

Result<Tensor> copy_out(const Runtime& rt, void* value) {
  auto* api = rt.api;
  void* info = nullptr;
  Status st = fn<Status (*)(const void*, void**)>(api, kGetTensorTypeAndShape)(value, &info);
  if (st != nullptr) return make_error(ErrorKind::io, rt.status_message(st));
  Tensor t;
  std::size_t n = 0, count = 0;
  st = fn<Status (*)(const void*, int*)>(api, kGetTensorElementType)(info, &t.type);
  if (st == nullptr) st = fn<Status (*)(const void*, std::size_t*)>(api, kGetDimensionsCount)(info, &n);
  if (st == nullptr && n <= 64) {
    t.shape.resize(n);
    st = fn<Status (*)(const void*, std::int64_t*, std::size_t)>(api, kGetDimensions)(info, t.shape.data(), n);
  }
  if (st == nullptr) st = fn<Status (*)(const void*, std::size_t*)>(api, kGetTensorShapeElementCount)(info, &count);
  fn<void (*)(void*)>(api, kReleaseTensorTypeAndShapeInfo)(info);
  if (st != nullptr) return make_error(ErrorKind::io, rt.status_message(st));
  int size = element_size(t.type);
  if (size == 0) return make_error(ErrorKind::unsupported, "output of type " + element_name(t.type));
  void* data = nullptr;
  st = fn<Status (*)(void*, void**)>(api, kGetTensorMutableData)(value, &data);
  if (st != nullptr) return make_error(ErrorKind::io, rt.status_message(st));
  t.bytes.assign(static_cast<const char*>(data), count * static_cast<std::size_t>(size));
  return t;
}

}  // namespace

Result<bool> Session::run_prepared() {
  std::vector<const char*> in_names, out_names;
  for (const auto& i : inputs_) in_names.push_back(i.name.c_str());
  for (const auto& o : outputs_) out_names.push_back(o.name.c_str());
  std::vector<void*> outs(outputs_.size(), nullptr);
  Status st = fn<Status (*)(void*, const void*, const char* const*, void* const*, std::size_t, const char* const*, std::size_t, void**)>(
      rt_->api, kRun)(session_, nullptr, in_names.data(), prepared_.data(), prepared_.size(), out_names.data(), out_names.size(), outs.data());
  for (void* v : outs) {
    if (v != nullptr) fn<void (*)(void*)>(rt_->api, kReleaseValue)(v);
  }
  if (st != nullptr) return make_error(ErrorKind::io, "Run: " + rt_->status_message(st));
  return true;
}

Result<std::vector<Tensor>> Session::run(const std::vector<Tensor>& inputs, bool keep) {
  auto p = prepare(inputs);
  if (!p) return p.error();
  if (!keep) {
    auto r = run_prepared();
    if (!r) return r.error();
    return std::vector<Tensor>{};
  }
  std::vector<const char*> in_names, out_names;
  for (const auto& i : inputs_) in_names.push_back(i.name.c_str());
  for (const auto& o : outputs_) out_names.push_back(o.name.c_str());
  std::vector<void*> outs(outputs_.size(), nullptr);
  Status st = fn<Status (*)(void*, const void*, const char* const*, void* const*, std::size_t, const char* const*, std::size_t, void**)>(
      rt_->api, kRun)(session_, nullptr, in_names.data(), prepared_.data(), prepared_.size(), out_names.data(), out_names.size(), outs.data());
  std::vector<Tensor> result;
  std::string why;
  for (void* v : outs) {
    if (v == nullptr) continue;
    if (st == nullptr && why.empty()) {
      auto t = copy_out(*rt_, v);
      if (t) result.push_back(std::move(t.value()));
      else why = t.error().message;
    }
    fn<void (*)(void*)>(rt_->api, kReleaseValue)(v);
  }
  if (st != nullptr) return make_error(ErrorKind::io, "Run: " + rt_->status_message(st));
  if (!why.empty()) return make_error(ErrorKind::unsupported, why);
  return result;
}

}  // namespace plumb::ort
