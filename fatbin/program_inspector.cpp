#include "fatbin/program_inspector.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "fatbin/elf64.h"

namespace tlmgpu::fatbin {

namespace {

/// Functions only NVIDIA's runtime defines; a program built with
/// `-cudart shared` has them undefined (imported from libcudart.so.N).
const std::vector<std::string>& cudart_functions() {
  static const std::vector<std::string> names = {"__cudaRegisterFatBinary", "cudaLaunchKernel", "cudaMalloc",
                                                 "cudaGetDeviceCount"};
  return names;
}

void append_problem(std::string& problem, const std::string& more) {
  if (!problem.empty()) problem += "; ";
  problem += more;
}

}  // namespace

ProgramInfo inspect_program_bytes(const uint8_t* data, size_t size) {
  ProgramInfo info;
  if (!elf::is_elf64_le(data, size)) {
    info.problem = "not an ELF64 little-endian program";
    return info;
  }
  info.is_elf = true;
  const elf::Image image(data, size, 0);
  info.needed = image.needed();

  bool links_cudart = false;
  for (const std::string& lib : info.needed)
    if (lib.compare(0, 12, "libcudart.so") == 0) links_cudart = true;
  bool defines_cudart = false;
  for (const elf::Section& s : image.sections())
    if ((s.type == elf::kShtSymtab || s.type == elf::kShtDynsym) && image.defines_function(s, cudart_functions()))
      defines_cudart = true;

  for (const char* name : {".nv_fatbin", "__nv_relfatbin"}) {
    const elf::Section* s = image.find(name);
    if (!s) continue;
    const uint64_t n = image.file_size(*s);
    if (name[0] == '.') info.has_fatbin = n > 0;
    // Offsets in the section are moved to the file's for the message.
    try {
      for (FatbinContainer& c : read_containers(image.bytes(*s), size_t(n))) info.containers.push_back(std::move(c));
    } catch (const FatbinError& e) {
      throw FatbinError(std::string(name) + ": " + e.problem(), s->offset + e.offset());
    }
  }
  for (const FatbinContainer& c : info.containers)
    if (!c.ptx.empty()) info.has_ptx = true;

  info.cudart_static = (info.has_fatbin && !links_cudart) || defines_cudart;
  if (info.cudart_static)
    append_problem(info.problem,
                   "the program has NVIDIA's CUDA runtime linked in (nvcc's default -cudart static), which the "
                   "simulator cannot stand in for: rebuild it with -cudart shared");
  if (info.has_fatbin && !info.has_ptx)
    append_problem(info.problem,
                   "the program's device code holds no PTX, only machine code (e.g. -gencode "
                   "arch=compute_75,code=sm_75), and the simulator runs PTX: rebuild it with -arch=sm_75, or add "
                   "-gencode arch=compute_75,code=compute_75");
  return info;
}

ProgramInfo inspect_program_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw std::runtime_error(path + ": cannot read the program (" +
                             (ec ? ec.message() : std::string("not a regular file")) + ")");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error(path + ": cannot open the program");
  const std::streamoff n = in.tellg();
  std::vector<uint8_t> bytes(n > 0 ? size_t(n) : 0);
  in.seekg(0);
  if (n < 0 || !in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size())))
    throw std::runtime_error(path + ": cannot read the program");
  try {
    return inspect_program_bytes(bytes.data(), bytes.size());
  } catch (const FatbinError& e) {
    throw FatbinError(path + ": " + e.problem(), e.offset());
  }
}

}  // namespace tlmgpu::fatbin
