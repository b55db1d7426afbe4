// ONNX Runtime through its C API, loaded at run time (PLUMB_ORT_LIB, else libonnxruntime.so.1,
// else libonnxruntime.so): OrtGetApiBase()->GetApi(kOrtApiVersion) gives the function table, of
// which plumb uses the entries of API version 1 by their documented positions (our own
// declarations, written from onnxruntime_c_api.h; ORT 1.x keeps every older table layout). Enough
// to open a session with thread and execution-mode settings, describe its inputs and outputs,
// and run it on CPU tensors. Calls that can take long (session creation, Run) are the caller's to
// bound: the types here are shared_ptr-owned so a thread abandoned at a deadline keeps them alive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace plumb::ort {

// ONNXTensorElementDataType values (onnxruntime_c_api.h).
enum ElementType : int {
  kUndefined = 0, kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7, kString = 8,
  kBool = 9, kFloat16 = 10, kDouble = 11, kUint32 = 12, kUint64 = 13, kComplex64 = 14, kComplex128 = 15, kBfloat16 = 16,
};
// Bytes per element, 0 for types plumb does not feed (string, undefined).
int element_size(int type);
// numpy descr of the same type ("<f4"), empty when numpy has none (bfloat16, string).
std::string element_descr(int type);
std::string element_name(int type);

struct TensorInfo {
  std::string name;
  int type = kUndefined;
  std::vector<std::int64_t> dims;  // -1 (or a symbolic name) for a dynamic dimension
  bool is_tensor = true;
};

struct Tensor {
  int type = kFloat;
  std::vector<std::int64_t> shape;
  std::string bytes;  // row-major, native byte order
};

struct SessionSettings {
  int intra_op_threads = 0;   // 0: ORT's default
  int inter_op_threads = 0;
  bool parallel = false;      // ExecutionMode ORT_PARALLEL instead of ORT_SEQUENTIAL
  int graph_optimization = 99;  // GraphOptimizationLevel: 0 off, 1 basic, 2 extended, 99 all
};

class Runtime;

class Session {
 public:
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  [[nodiscard]] const std::vector<TensorInfo>& inputs() const { return inputs_; }
  [[nodiscard]] const std::vector<TensorInfo>& outputs() const { return outputs_; }
  // Runs once. With `keep`, the outputs are copied out; otherwise they are released at once.
  Result<std::vector<Tensor>> run(const std::vector<Tensor>& inputs, bool keep);
  // Prepares input values once, so that timed runs do not copy (run_prepared).
  Result<bool> prepare(const std::vector<Tensor>& inputs);
  Result<bool> run_prepared();

 private:
  friend class Runtime;
  Session() = default;
  const Runtime* rt_ = nullptr;
  void* session_ = nullptr;
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<void*> prepared_;
  void release_prepared();
};

class Runtime {
 public:
  // Loads the library once per process (later calls return the first result). `path` empty:
  // PLUMB_ORT_LIB, else the usual names.
  static Result<std::shared_ptr<Runtime>> load(const std::string& path);
  [[nodiscard]] const std::string& version() const { return version_; }  // OrtApiBase::GetVersionString
  [[nodiscard]] const std::string& library() const { return library_; }
  Result<std::shared_ptr<Session>> open(const std::string& model, const SessionSettings& s) const;

  // The table and the one environment; used by Session.
  void* const* api = nullptr;
  void* env = nullptr;
  // Turns an OrtStatus* into an Error (and releases it); nullptr is success.
  [[nodiscard]] std::string status_message(void* status) const;

 private:
  std::string version_, library_;
};

// The API version plumb asks for. The positions used all exist since version 1; asking for 1
// works on every ORT 1.x release.
constexpr std::uint32_t kOrtApiVersion = 1;

}  // namespace plumb::ort
