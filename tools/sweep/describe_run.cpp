#include "tools/sweep/describe_run.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "tools/sweep/child_process.h"

namespace sweep {

std::uint64_t fnv1a64(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

RunDescription describe_run(const std::string& tlmgpu, const paper_cmp::RunSpec& spec, const std::string& size) {
  // run_arguments ends with "--stats FILE"; the reproducing command leaves
  // the file to the reader, so that it does not depend on --out.
  std::vector<std::string> args = paper_cmp::run_arguments(spec, size, "");
  args.resize(args.size() - 2);
  RunDescription d;
  d.command = shell_command(tlmgpu, args);
  args.push_back("--dump-config");
  const CapturedOutput dump = run_capture(tlmgpu, args);
  if (dump.exit_code != 0)
    throw std::runtime_error(d.command + " --dump-config failed: " + dump.err.substr(0, dump.err.find('\n')));
  d.config_hash = hex64(fnv1a64(dump.out));
  return d;
}

}  // namespace sweep
