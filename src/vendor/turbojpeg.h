// JPEG decoding for the dataload benchmark through libjpeg-turbo's TurboJPEG API, loaded with
// vendor/dynlib (libturbojpeg.so.0) so plumb runs without it and says why decoding is unavailable.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace plumb {

class JpegDecoder {
 public:
  // Loads the library once per process; an error names the library and the loader's reason.
  static Result<bool> available();
  JpegDecoder();
  ~JpegDecoder();
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;
  // Decodes to RGB; returns the pixel count, or an error for a file that is not a valid JPEG.
  Result<long> decode(const unsigned char* data, std::size_t size);

 private:
  void* handle_ = nullptr;
  std::vector<unsigned char> pixels_;
};

}  // namespace plumb
