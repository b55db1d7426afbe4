// The framework probe: the embedded script compiles, recorded answers parse (Debian's real
// CPU-only torch, GPU-shaped builds, missing packages), and fake interpreters that hang, crash or
// print garbage become facts instead of errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "../../test_util.h"
#include "collect/python_probe.h"

namespace plumb {
namespace {

std::string fake(const std::string& name) { return test::fixture("framework/fake_python/" + name); }

ProbeTarget target_of(const std::string& interpreter) {
  ProbeTarget t;
  t.interpreter = interpreter;
  t.chosen_by = "--python";
  return t;
}

TEST(ProbeScript, IsValidPython) {
  // The host's interpreter on purpose: the probe script must compile with a real Python.
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3 to compile the probe script";
  std::string path = ::testing::TempDir() + "/plumb_probe_script.py";
  { std::ofstream(path) << python_probe_script(); }
  auto r = run_program({"/usr/bin/python3", "-m", "py_compile", path});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->exit_code, 0) << r->err;
}

TEST(ProbeParse, DebianCpuOnlyTorchIsHonest) {
  // Recorded from Debian 12's python3-torch 1.13 (/usr/bin/python3) on a machine without a GPU.
  auto f = parse_probe_output(test::read_fixture("framework/probe/debian12-python3-torch-1.13-cpu.txt"), "/usr/bin/python3");
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_TRUE(f->python.has());
  EXPECT_EQ(f->python->version, "3.11.2");
  EXPECT_EQ(f->python.source, "python probe (/usr/bin/python3)");
  ASSERT_TRUE(f->torch.has());
  EXPECT_EQ(f->torch->version, "1.13.0a0");
  EXPECT_FALSE(f->torch->cuda.has_value());
  EXPECT_TRUE(f->torch->cpu_only());
  EXPECT_EQ(f->torch->cuda_available, false);
  EXPECT_EQ(f->torch->tf32_matmul, false);
  EXPECT_EQ(f->torch->tf32_cudnn, true);
  ASSERT_TRUE(f->numpy.has());
  EXPECT_EQ(f->numpy->version, "1.24.2");
  EXPECT_TRUE(not_installed(f->h5py));
  EXPECT_TRUE(not_installed(f->tensorflow));
  EXPECT_NE(f->h5py.missing.find("No module named 'h5py'"), std::string::npos);
}

TEST(ProbeParse, GpuBuildWithEveryFrameworkAfterANoiseLine) {
  auto f = parse_probe_output(test::read_fixture("framework/probe/gpu-8x-h100-torch2.5-cu124.txt"), "python3");
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_TRUE(f->torch.has());
  EXPECT_EQ(f->torch->cuda, "12.4");
  EXPECT_EQ(f->torch->cudnn_compiled, "9.1.0");
  EXPECT_EQ(f->torch->nccl, "2.21.5");
  EXPECT_EQ(f->torch->device_count, 8);
  ASSERT_EQ(f->torch->devices.size(), 8u);
  EXPECT_EQ(f->torch->devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(f->torch->devices[0].capability, "9.0");
  ASSERT_TRUE(f->tensorflow.has());
  EXPECT_EQ(f->tensorflow->cuda, "12.2");
  ASSERT_TRUE(f->jax.has());
  EXPECT_EQ(f->jax->jaxlib, "0.4.30");
  EXPECT_EQ(f->jax->plugins, (std::vector<std::string>{"jax-cuda12-pjrt 0.4.30", "jax-cuda12-plugin 0.4.30"}));
  ASSERT_TRUE(f->onnxruntime.has());
  EXPECT_EQ(f->onnxruntime->providers.size(), 3u);
  ASSERT_TRUE(f->h5py.has());
  EXPECT_EQ(f->h5py->hdf5_version, "1.14.2");
  EXPECT_EQ(f->h5py->filters.at("szip"), false);
  EXPECT_EQ(f->h5py->filters.at("deflate"), true);
  ASSERT_TRUE(f->env.has());
  EXPECT_EQ(f->env->at("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
}

TEST(ProbeParse, RealH200MachineWithTorchAndJax) {
  // Recorded on an H200 machine: torch's pip-wheel cuDNN and NCCL mapped, JAX known by its plugins.
  auto f = parse_probe_output(test::read_fixture("framework/probe/h200-torch2.11-cu130-jax0.11.txt"), "python3");
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_TRUE(f->torch.has());
  EXPECT_EQ(f->torch->version, "2.11.0+cu130");
  EXPECT_EQ(f->torch->cuda, "13.0");
  EXPECT_EQ(f->torch->cuda_available, true);
  ASSERT_EQ(f->torch->devices.size(), 1u);
  EXPECT_EQ(f->torch->devices[0].name, "NVIDIA H200");
  EXPECT_EQ(f->torch->devices[0].capability, "9.0");
  ASSERT_EQ(f->torch->mapped_libs.size(), 2u);
  EXPECT_EQ(f->torch->mapped_libs[0].version, "2.28.9");  // ncclGetVersion 22809
  EXPECT_EQ(f->torch->mapped_libs[1].version, "9.19.0");  // cudnnGetVersion 91900
  ASSERT_TRUE(f->jax.has());
  EXPECT_EQ(f->jax->plugins, (std::vector<std::string>{"jax-cuda13-pjrt 0.11.2", "jax-cuda13-plugin 0.11.2"}));
  ASSERT_TRUE(f->h5py.has());
  EXPECT_EQ(f->h5py->hdf5_version, "2.0.0");
  EXPECT_TRUE(not_installed(f->tensorflow));
  EXPECT_EQ(f->python->version, "3.12.3");
}

TEST(ProbeParse, ImportErrorIsNotNotInstalled) {
  auto f = parse_probe_output(test::read_fixture("framework/probe/torch-import-error.txt"), "python3");
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->torch.has());
  EXPECT_FALSE(not_installed(f->torch));
  EXPECT_NE(f->torch.missing.find("import failed: OSError: libcudnn.so.9"), std::string::npos);
}

TEST(ProbeParse, NoPackagesInstalled) {
  auto f = parse_probe_output(test::read_fixture("framework/probe/pyenv-3.11-no-packages.txt"), "python3");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->python.has());
  EXPECT_TRUE(not_installed(f->torch));
  EXPECT_TRUE(not_installed(f->numpy));
}

TEST(ProbeParse, GarbageIsAnErrorNotACrash) {
  EXPECT_FALSE(parse_probe_output("", "p").ok());
  EXPECT_FALSE(parse_probe_output("hello\n", "p").ok());
  EXPECT_FALSE(parse_probe_output("PLUMB-PROBE-JSON {broken\n", "p").ok());
  EXPECT_FALSE(parse_probe_output("PLUMB-PROBE-JSON []\n", "p").ok());
  EXPECT_FALSE(parse_probe_output("PLUMB-PROBE-JSON {\"packages\": 3}\n", "p").ok());
  // A marker in the middle of a line is not the answer.
  EXPECT_FALSE(parse_probe_output("x PLUMB-PROBE-JSON {\"packages\": {}}\n", "p").ok());
  // Wrong types inside are ignored field by field.
  auto f = parse_probe_output(
      "PLUMB-PROBE-JSON {\"packages\": {\"torch\": {\"ok\": true, \"version\": 3, \"cuda\": [1], "
      "\"device_count\": -4, \"devices\": [1, {\"name\": 2}]}}, \"env\": {\"A\": 1}}\n",
      "p");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->torch.has());
  EXPECT_EQ(f->torch->version, "");
  EXPECT_FALSE(f->torch->cuda.has_value());
  EXPECT_FALSE(f->torch->device_count.has_value());
  EXPECT_EQ(f->torch->devices.size(), 1u);
  EXPECT_TRUE(f->env->empty());
  EXPECT_EQ(f->jax.missing, "not reported by the probe");
}

TEST(ProbeParse, MappedLibrariesAreDecodedAndGarbageSkipped) {
  auto f = parse_probe_output(
      "PLUMB-PROBE-JSON {\"packages\": {\"torch\": {\"ok\": true, \"version\": \"2.5.1\", \"cuda\": \"12.4\", "
      "\"mapped_libs\": [{\"lib\": \"nccl\", \"path\": \"/x/libnccl.so.2\", \"raw_version\": 22105}, "
      "{\"lib\": \"cudnn\", \"path\": \"/x/libcudnn.so.8\", \"raw_version\": 8902, \"deleted\": true}, "
      "{\"lib\": \"cudnn\", \"path\": \"/y/libcudnn.so.9\", \"error\": \"AttributeError: x\"}, "
      "{\"lib\": \"cublas\", \"path\": \"/z\"}, 7, {\"lib\": \"nccl\", \"raw_version\": \"2\"}]}}}\n",
      "p");
  ASSERT_TRUE(f.ok());
  const auto& m = f->torch->mapped_libs;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].version, "2.21.5");
  EXPECT_EQ(m[1].version, "8.9.2");
  EXPECT_TRUE(m[1].deleted);
  EXPECT_EQ(m[2].version, "");
  EXPECT_EQ(m[2].error, "AttributeError: x");
  EXPECT_EQ(m[3].error, "no version reported");
}

// The probe script's definitions (everything before it starts probing) in /usr/bin/python3, after
// `before`, then one line: the encoded value of the expression `call`.
Result<RunOutput> run_probe_part(const std::string& before, const std::string& call) {
  std::string script = python_probe_script();
  auto main_loop = script.find("\nMAIN = (");
  if (main_loop == std::string::npos) return make_error(ErrorKind::internal, "the probe script has no MAIN = ( line");
  std::string prog = before + script.substr(0, main_loop) + "\n_answer.write(encode(" + call + ") + '\\n')\n_answer.flush()\n";
  RunOptions o;
  o.timeout = std::chrono::milliseconds(10000);
  return run_program({"/usr/bin/python3", "-c", prog}, o);
}

TEST(ProbeScript, MappedLibrariesOfARealInterpreter) {
  // The probe's maps reader in a real python3 (the probe is Python: it needs an interpreter) that has
  // loaded an NCCL with ctypes: tests/helpers/fake_cuda's NCCL 2.21.5, under the name the probe looks for.
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3 to run the probe script";
  const std::string dir = ::testing::TempDir() + "/plumb_probe_nccl_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string nccl = dir + "/libnccl.so.2";
  std::filesystem::copy_file(std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nccl.so", nccl,
                             std::filesystem::copy_options::overwrite_existing);
  auto r = run_probe_part("import ctypes\nctypes.CDLL('" + nccl + "')\n", "mapped_cuda_libs()");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->exit_code, 0) << r->err;
  EXPECT_NE(r->out.find("\"lib\": \"nccl\""), std::string::npos) << r->out;
  EXPECT_NE(r->out.find("\"raw_version\": 22105"), std::string::npos) << r->out;  // NCCL_VERSION_CODE of 2.21.5
}

TEST(ProbeScript, JaxIsAskedForNoBackendAndItsPluginsComeFromTheirRecords) {
  // A jax whose devices() and default_backend() end the interpreter: the probe must not call
  // them (on a GPU machine they start XLA on every GPU). Its plugins are dist-info folders on
  // sys.path, as pip installs them; jaxlib's own record and other packages are not plugins.
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3 to run the probe script";
  const std::string dir = ::testing::TempDir() + "/plumb_probe_jax_" + std::to_string(::getpid());
  for (const char* d : {"jax", "jaxlib", "jax_cuda13_plugin-0.11.2.dist-info", "jax_cuda13_pjrt-0.11.2.dist-info",
                        "jaxlib-0.11.2.dist-info", "numpy-2.5.2.dist-info", "libtpu-0.0.21.dist-info"}) {
    std::filesystem::create_directories(dir + "/" + d);
  }
  std::ofstream(dir + "/jax/__init__.py") << "import os\n__version__ = '0.11.2'\n"
                                             "def devices(): os._exit(7)\ndefault_backend = devices\n";
  std::ofstream(dir + "/jaxlib/__init__.py") << "__version__ = '0.11.2'\n";
  auto r = run_probe_part("import sys\nsys.path.insert(0, '" + dir + "')\n", "probe_jax()");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->exit_code, 0) << r->err;
  EXPECT_EQ(r->out, "{\"jaxlib\": \"0.11.2\", \"plugins\": [\"jax-cuda13-pjrt 0.11.2\", \"jax-cuda13-plugin 0.11.2\", "
                    "\"libtpu 0.0.21\"], \"version\": \"0.11.2\"}\n");
}

// The whole probe script in /usr/bin/python3 with `dir` first on its path (packages there shadow
// installed ones), parsed as the collector parses it.
Result<FrameworkFacts> probe_with_path(const std::string& dir) {
  RunOptions o;
  o.timeout = std::chrono::milliseconds(20000);
  o.extra_env = {{"PYTHONPATH", dir}, {"PYTHONDONTWRITEBYTECODE", "1"}};
  auto r = run_program({"/usr/bin/python3", "-c", python_probe_script()}, o);
  if (!r) return r.error();
  EXPECT_EQ(r->exit_code, 0) << r->err;
  return parse_probe_output(r->out, "/usr/bin/python3");
}

void write_package(const std::string& dir, const std::string& name, const std::string& init) {
  std::filesystem::create_directories(dir + "/" + name);
  std::ofstream(dir + "/" + name + "/__init__.py") << init;
}

TEST(ProbeScript, TheOtherFrameworksAnswerFromAWorkerBesideTorch) {
  // jax is installed: the worker forks and answers for it while the main process imports torch
  // (here a torch whose import fails, so that the test does not wait for a real one).
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "needs /usr/bin/python3 to run the probe script";
  const std::string dir = ::testing::TempDir() + "/plumb_probe_worker_" + std::to_string(::getpid());
  write_package(dir, "torch", "raise ImportError('this torch does not load')\n");
  write_package(dir, "numpy", "__version__ = '9.9.9'\n");
  write_package(dir, "jax", "__version__ = '0.11.2'\n");
  write_package(dir, "jaxlib", "__version__ = '0.11.2'\n");
  std::filesystem::create_directories(dir + "/jax_cuda13_plugin-0.11.2.dist-info");
  auto f = probe_with_path(dir);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  ASSERT_TRUE(f->numpy.has()) << f->numpy.why();
  EXPECT_EQ(f->numpy->version, "9.9.9");
  EXPECT_FALSE(f->torch.has());
  EXPECT_NE(f->torch.why().find("this torch does not load"), std::string::npos) << f->torch.why();
  ASSERT_TRUE(f->jax.has()) << f->jax.why();
  EXPECT_EQ(f->jax->plugins, std::vector<std::string>{"jax-cuda13-plugin 0.11.2"});

  // A framework whose import kills the worker: its packages say so, the main process's stand.
  write_package(dir, "onnxruntime", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n");
  f = probe_with_path(dir);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(f.ok()) << f.error().describe();
  EXPECT_TRUE(f->numpy.has());
  for (const auto* why : {&f->jax.missing, &f->onnxruntime.missing, &f->h5py.missing, &f->tensorflow.missing}) {
    EXPECT_NE(why->find("the probe's worker process ended without an answer (killed by signal 9)"), std::string::npos)
        << *why;
  }
}

TEST(ProbeRun, FakeGpuInterpreterAnswers) {
  auto f = run_python_probe(target_of(fake("gpu-h100")), std::chrono::milliseconds(5000));
  ASSERT_TRUE(f.torch.has()) << f.torch.why();
  EXPECT_EQ(f.torch->cuda_available, true);
  EXPECT_EQ(f.python->chosen_by, "--python");
}

TEST(ProbeRun, HangingInterpreterHitsTheDeadline) {
  auto f = run_python_probe(target_of(fake("hang")), std::chrono::milliseconds(300));
  EXPECT_FALSE(f.torch.has());
  EXPECT_EQ(f.torch.missing, "probe timed out after 300 ms");
  EXPECT_EQ(f.python.missing, "probe timed out after 300 ms");
}

TEST(ProbeRun, TracebackSaysWhatWentWrong) {
  auto f = run_python_probe(target_of(fake("traceback")), std::chrono::milliseconds(5000));
  EXPECT_FALSE(f.python.has());
  EXPECT_EQ(f.python.missing, "probe exited with code 1: SyntaxError: invalid syntax");
}

TEST(ProbeRun, GarbageOutputIsAFact) {
  auto f = run_python_probe(target_of(fake("garbage")), std::chrono::milliseconds(5000));
  EXPECT_FALSE(f.torch.has());
  EXPECT_EQ(f.torch.missing.rfind("the probe's answer is not valid JSON", 0), 0u) << f.torch.missing;
}

TEST(ProbeRun, MissingInterpreterIsAFact) {
  auto f = run_python_probe(target_of("/nonexistent/python3"), std::chrono::milliseconds(5000));
  EXPECT_TRUE(f.collected);
  EXPECT_EQ(f.torch.missing, "interpreter not found: /nonexistent/python3");
  EXPECT_EQ(f.torch.source, "python probe (/nonexistent/python3)");
}

TEST(ProbeTarget, FixtureRootRunsNothingWithoutPython) {
  Context ctx;
  ctx.root = HostRoot(test::fixture("framework"));
  auto t = choose_interpreter(ctx);
  EXPECT_TRUE(t.interpreter.empty());
  EXPECT_NE(t.not_run.find("--python"), std::string::npos);
  ctx.python = "/usr/bin/python3";
  t = choose_interpreter(ctx);
  EXPECT_EQ(t.interpreter, "/usr/bin/python3");
  EXPECT_EQ(t.chosen_by, "--python");
}

TEST(ProbeIdentity, RootSwitchesToTheTargetsRealIds) {
  const std::string user = "Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\nGid:\t1001\t1001\t1001\t1001\nGroups:\t27 44 1001 \n";
  auto id = probe_identity(user, 0);
  ASSERT_TRUE(id) << id.error().message;
  ASSERT_TRUE(id->has_value());
  EXPECT_EQ((*id)->uid, 1000u);
  EXPECT_EQ((*id)->gid, 1001u);
  EXPECT_EQ((*id)->groups, (std::vector<unsigned>{27, 44, 1001}));
  // plumb not root, or the target root's own: nothing to switch.
  EXPECT_FALSE(probe_identity(user, 1000)->has_value());
  EXPECT_FALSE(probe_identity("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n", 0)->has_value());
  // A setuid-root process of user 1000 still runs as 1000 here (the real id says whose it is).
  auto setuid = probe_identity("Uid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\nGroups:\n", 0);
  ASSERT_TRUE(setuid && setuid->has_value());
  EXPECT_EQ((*setuid)->uid, 1000u);
  EXPECT_TRUE((*setuid)->groups.empty());
  EXPECT_FALSE(probe_identity("Name:\tx\n", 0));
  EXPECT_FALSE(probe_identity("Uid:\tabc\nGid:\t1\n", 0));
  EXPECT_FALSE(probe_identity("Uid:\t-1\nGid:\t1\n", 0));
  EXPECT_FALSE(probe_identity("Uid:\t5\nGid:\t5\nGroups:\t1 x\n", 0));
}

TEST(ProbeIdentity, TheProbeRunsBehindSetprivAsThatUser) {
  ProbeTarget t = target_of("/usr/bin/python3");
  t.run_as = ProbeIdentity{1000, 1001, {27, 1001}, "/usr/bin/setpriv"};
  auto argv = probe_argv(t);
  ASSERT_GE(argv.size(), 8u);
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + 7),
            (std::vector<std::string>{"/usr/bin/setpriv", "--reuid=1000", "--regid=1001", "--groups=27,1001", "--",
                                      "/usr/bin/python3", "-c"}));
  t.run_as->groups.clear();
  EXPECT_EQ(probe_argv(t)[3], "--clear-groups");
  t.run_as.reset();
  EXPECT_EQ(probe_argv(t)[0], "/usr/bin/python3");
}

TEST(ProbeIdentity, AsRootTheProbeReallyRunsAsTheTargetUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching users needs root; this test runs as uid " << ::geteuid();
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/setpriv (util-linux) here";
  // A fake interpreter that answers with the ids it runs under: not probe JSON, so the reason the
  // probe failed quotes that first line.
  char tmpl[] = "/tmp/plumb-probe-id-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  const std::string py = dir + "/python3";
  std::ofstream(py) << "#!/bin/sh\necho \"ids $(id -u) $(id -g) $(id -G)\"\n";
  ASSERT_EQ(::chmod(py.c_str(), 0755), 0);
  ProbeTarget t = target_of(py);
  t.run_as = ProbeIdentity{65534, 65534, {65534, 44}, "/usr/bin/setpriv"};
  auto f = run_python_probe(t, std::chrono::milliseconds(5000));
  EXPECT_NE(f.torch.missing.find("ids 65534 65534 65534 44"), std::string::npos) << f.torch.missing;
  std::filesystem::remove_all(dir);
}

TEST(ProbeTarget, PidThatIsNotPythonFallsBackToPath) {
  Context ctx;  // live root: this test process is the target, and it is not Python
  ctx.pid = static_cast<int>(::getpid());
  auto t = choose_interpreter(ctx);
  ASSERT_TRUE(t.env.has_value());
  EXPECT_FALSE(t.env->empty());
  if (t.env->count("VIRTUAL_ENV")) {
    EXPECT_EQ(t.chosen_by.find("$VIRTUAL_ENV") != std::string::npos, true);
  } else {
    EXPECT_EQ(t.interpreter, "python3");
    EXPECT_NE(t.chosen_by.find("not Python"), std::string::npos) << t.chosen_by;
  }
}

TEST(ProbeRun, NothingRunsWithoutAnInterpreter) {
  Context ctx;
  ctx.root = HostRoot("/");
  ctx.python = "/nonexistent/python3";
  auto f = python_probe_for(ctx, std::chrono::milliseconds(5000));
  EXPECT_EQ(f.torch.missing, "interpreter not found: /nonexistent/python3");
}

TEST(ProbeTarget, ParsesEnviron) {
  std::string raw("A=1\0B=x=y\0=bad\0NOEQ\0C=\0", 22);
  auto env = parse_environ(raw);
  EXPECT_EQ(env.size(), 3u);
  EXPECT_EQ(env.at("B"), "x=y");
  EXPECT_EQ(env.at("C"), "");
}

}  // namespace
}  // namespace plumb
