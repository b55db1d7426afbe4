#!/bin/sh
# The thread-safety checker must report each not-thread-safe call in code and pass what is not a
# call of one: names in comments and strings, raw strings (an embedded Python script), other
# functions whose names end alike, member calls, and a call kept with NOLINT and its reason.
set -eu
py=$1; checker=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
mkdir -p "$t/src/collect"
cat > "$t/src/collect/ok.cpp" <<'CPP'
// std::strerror(errno) would share a buffer; errno_text(e) does not.
std::string a = errno_text(e) + "strerror(e)";
const char* kScript = R"PY(
x = torch.rand(3)
print(time.localtime())
)PY";
double r = dist.rand(gen) + my_rand(1) + gmtime_r(&t, &tm);
dirent* d = ::readdir(dir);  // NOLINT(concurrency-mt-unsafe): a stream of this call's own
CPP
"$py" "$checker" "$t" > "$t/out" || { echo "checker failed allowed code:"; cat "$t/out"; exit 1; }
expect() {  # TEXT NAME: the checker must report NAME on line 1
  printf '%s\n' "$1" > "$t/src/collect/a.cpp"
  if "$py" "$checker" "$t" > "$t/out"; then echo "checker passed: $1"; exit 1; fi
  grep -q "^src/collect/a.cpp:1: $2 is not thread-safe" "$t/out" || { echo "wrong report for: $1"; cat "$t/out"; exit 1; }
  rm "$t/src/collect/a.cpp"
}
expect 'return make_error(ErrorKind::io, path + ": " + std::strerror(errno));' strerror
expect 'std::tm* tm = ::localtime(&now);' localtime
expect 'while ((e = readdir(d)) != nullptr) {' readdir
expect 'int x = rand() % 6;' rand
expect 'const char* s = "a"; auto t = std::gmtime(&now);  // a comment' gmtime
echo ok
