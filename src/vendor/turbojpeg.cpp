// TurboJPEG 2.x declarations (our own, from turbojpeg.h of libjpeg-turbo 2.1) and the decoder.
#include "vendor/turbojpeg.h"

#include <mutex>

#include "vendor/dynlib.h"

namespace plumb {

namespace {

using tjhandle = void*;
constexpr int kTJPF_RGB = 0;  // TJPF_RGB in enum TJPF

struct TurboJpeg {
  tjhandle (*init_decompress)() = nullptr;
  int (*decompress_header3)(tjhandle, const unsigned char*, unsigned long, int*, int*, int*, int*) = nullptr;
  int (*decompress2)(tjhandle, const unsigned char*, unsigned long, unsigned char*, int, int, int, int, int) = nullptr;
  int (*destroy)(tjhandle) = nullptr;
  std::string error;
};

const TurboJpeg& lib() {
  static TurboJpeg t;
  static std::once_flag once;
  std::call_once(once, [] {
    auto h = dynlib::open_first({"libturbojpeg.so.0", "libturbojpeg.so"});
    if (!h) {
      t.error = "libturbojpeg.so.0 not loadable (install libturbojpeg0): " + h.error().message;
      return;
    }
    dynlib::resolve(*h, t.init_decompress, {"tjInitDecompress"});
    dynlib::resolve(*h, t.decompress_header3, {"tjDecompressHeader3"});
    dynlib::resolve(*h, t.decompress2, {"tjDecompress2"});
    dynlib::resolve(*h, t.destroy, {"tjDestroy"});
    if (t.init_decompress == nullptr || t.decompress_header3 == nullptr || t.decompress2 == nullptr || t.destroy == nullptr) {
      t.error = "libturbojpeg.so.0 lacks the TurboJPEG 2 decompression functions";
    }
  });
  return t;
}

}  // namespace

Result<bool> JpegDecoder::available() {
  if (!lib().error.empty()) return make_error(ErrorKind::absent, lib().error);
  return true;
}

JpegDecoder::JpegDecoder() {
  if (lib().error.empty()) handle_ = lib().init_decompress();
}

JpegDecoder::~JpegDecoder() {
  if (handle_ != nullptr) lib().destroy(handle_);
}

Result<long> JpegDecoder::decode(const unsigned char* data, std::size_t size) {
  if (handle_ == nullptr) return make_error(ErrorKind::absent, lib().error.empty() ? "no decoder" : lib().error);
  int w = 0, h = 0, sub = 0, cs = 0;
  if (lib().decompress_header3(handle_, data, size, &w, &h, &sub, &cs) != 0 || w <= 0 || h <= 0) {
    return make_error(ErrorKind::invalid, "not a JPEG");
  }
  // Refuse absurd dimensions from a corrupt header instead of allocating gigabytes.
  if (static_cast<long long>(w) * h > 100'000'000LL) return make_error(ErrorKind::invalid, "JPEG too large");
  pixels_.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
  if (lib().decompress2(handle_, data, size, pixels_.data(), w, 0, h, kTJPF_RGB, 0) != 0) {
    return make_error(ErrorKind::invalid, "JPEG decode failed");
  }
  return static_cast<long>(w) * h;
}

}  // namespace plumb
