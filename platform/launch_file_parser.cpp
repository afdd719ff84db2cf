#include "platform/launch_file_parser.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <memory>

#include "platform/launch_file.h"
#include "platform/launch_file_checker.h"

namespace tlmgpu::platform::launch_file {
namespace {

namespace fs = std::filesystem;

// Reads one of the keys `values`, `file`, `constant`, `random` of `obj`
// (exactly one must be present among those allowed).
Source parse_source(const Checker& ck, const json& obj, const std::string& path, Elem e,
                    std::initializer_list<const char*> allowed) {
  const char* which = nullptr;
  for (const char* k : allowed) {
    if (!ck.find(obj, k)) continue;
    if (which) ck.fail(path, std::string("give only one of '") + which + "' and '" + k + "'");
    which = k;
  }
  if (!which) {
    std::string list;
    for (const char* k : allowed) list += std::string(list.empty() ? "'" : ", '") + k + "'";
    ck.fail(path, "missing the data: one of " + list);
  }
  const std::string kp = key_path(path, which);
  const json& v = obj.at(which);
  const unsigned w = info(e).bytes;
  Source src;
  std::string key = which;
  if (key == "constant") {
    src.kind = Source::Kind::Constant;
    src.constant = ck.value_bits(v, e, kp);
  } else if (key == "values") {
    ck.array(v, kp);
    src.kind = Source::Kind::Bytes;
    src.bytes.resize(v.size() * w);
    for (size_t i = 0; i < v.size(); ++i) store_bits(&src.bytes[i * w], w, ck.value_bits(v[i], e, index_path(kp, i)));
    src.count = v.size();
  } else if (key == "file") {
    src.kind = Source::Kind::Bytes;
    src.bytes = ck.read_file(v, kp);
    if (src.bytes.size() % w != 0)
      ck.fail(kp, "file has " + std::to_string(src.bytes.size()) + " bytes, not a multiple of " +
                      std::to_string(w) + " (" + info(e).name + ")");
    src.count = src.bytes.size() / w;
  } else if (key == "sequence") {
    ck.object(v, kp);
    ck.allow_keys(v, kp, {"start", "step"});
    src.kind = Source::Kind::Sequence;
    if (const json* s = ck.find(v, "start")) src.start = ck.value_bits(*s, e, key_path(kp, "start"));
    src.step = ck.value_bits(ck.require(v, "step", kp), e, key_path(kp, "step"));
  } else {  // random
    ck.object(v, kp);
    ck.allow_keys(v, kp, {"seed", "min", "max"});
    src.kind = Source::Kind::Random;
    if (const json* s = ck.find(v, "seed")) src.seed = ck.unsigned_int(*s, key_path(kp, "seed"), 0, ~0ull);
    src.lo = ck.value_bits(ck.require(v, "min", kp), e, key_path(kp, "min"));
    src.hi = ck.value_bits(ck.require(v, "max", kp), e, key_path(kp, "max"));
    bool ordered = info(e).is_float ? to_double(e, src.lo) <= to_double(e, src.hi)
                   : info(e).is_signed ? to_signed(e, src.lo) <= to_signed(e, src.hi)
                                       : src.lo <= src.hi;
    if (!ordered) ck.fail(kp, "min is greater than max");
    if (info(e).is_float && !(std::isfinite(to_double(e, src.lo)) && std::isfinite(to_double(e, src.hi))))
      ck.fail(kp, "min and max must be finite");
  }
  return src;
}

class Parser {
 public:
  Parser(const Checker& ck, LaunchPlan& plan) : ck_(ck), plan_(plan) {}

  void parse(const json& root) {
    if (!root.is_object()) ck_.fail("", std::string("expected a JSON object at the top level, got ") + root.type_name());
    ck_.allow_keys(root, "", {"ptx", "divergence", "types", "structs", "buffers", "textures", "symbols", "launches",
                              "repeat", "dump", "expect", "expect_fault"});

    const json& ptx = ck_.require(root, "ptx", "");
    plan_.ptx_path = ck_.resolve(ck_.string(ptx, "ptx"));
    std::error_code ec;
    if (!fs::is_regular_file(plan_.ptx_path, ec)) ck_.fail("ptx", "file not found: " + plan_.ptx_path);

    if (const json* d = ck_.find(root, "divergence")) {
      std::string s = ck_.string(*d, "divergence");
      if (s == "ipdom") plan_.divergence = exec::DivergenceMode::Ipdom;
      else if (s == "its") plan_.divergence = exec::DivergenceMode::Its;
      else ck_.fail("divergence", "unknown mode " + quote(s) + " (expected ipdom or its)");
    }

    // "structs" is another name for "types".
    if (ck_.find(root, "types") && ck_.find(root, "structs")) ck_.fail("", "give only one of 'types' and 'structs'");
    for (const char* key : {"types", "structs"})
      if (const json* t = ck_.find(root, key)) plan_.types.parse(ck_, *t, key);
    if (const json* b = ck_.find(root, "buffers")) {
      ck_.array(*b, "buffers");
      for (size_t i = 0; i < b->size(); ++i) parse_buffer((*b)[i], index_path("buffers", i));
    }
    if (const json* t = ck_.find(root, "textures")) parse_textures(*t);
    if (const json* s = ck_.find(root, "symbols")) {
      ck_.array(*s, "symbols");
      for (size_t i = 0; i < s->size(); ++i) parse_symbol((*s)[i], index_path("symbols", i));
    }
    parse_group(ck_.require(root, "launches", ""), "launches", plan_.root.steps);
    if (const json* r = ck_.find(root, "repeat")) plan_.root.repeat = parse_repeat(*r, "repeat");
    plan_.root.path = "repeat";
    if (const json* d = ck_.find(root, "dump")) {
      ck_.array(*d, "dump");
      for (size_t i = 0; i < d->size(); ++i) parse_dump((*d)[i], index_path("dump", i));
    }
    if (const json* e = ck_.find(root, "expect")) {
      ck_.array(*e, "expect");
      for (size_t i = 0; i < e->size(); ++i) parse_expect((*e)[i], index_path("expect", i));
    }
    if (const json* f = ck_.find(root, "expect_fault")) plan_.expect_fault = parse_fault_expect(*f, "expect_fault");
  }

 private:
  size_t buffer_ref(const json& v, const std::string& path) const {
    std::string name = ck_.string(v, path);
    auto it = plan_.buffer_index.find(name);
    if (it == plan_.buffer_index.end()) ck_.fail(path, "unknown buffer " + quote(name));
    return it->second;
  }

  void parse_buffer(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"name", "type", "count", "init"});
    BufferSpec b;
    b.path = path;
    b.name = ck_.string(ck_.require(v, "name", path), key_path(path, "name"));
    if (b.name.empty()) ck_.fail(key_path(path, "name"), "empty buffer name");
    if (plan_.buffer_index.count(b.name)) ck_.fail(key_path(path, "name"), "duplicate buffer " + quote(b.name));
    const json& type = ck_.require(v, "type", path);
    b.struct_type = type.is_string() ? plan_.types.find(type.get<std::string>()) : -1;
    if (b.struct_type >= 0) {
      b.elem_bytes = plan_.types.type(size_t(b.struct_type)).size;
    } else {
      b.type = ck_.elem(type, key_path(path, "type"));
      b.elem_bytes = info(b.type).bytes;
    }
    const uint64_t w = b.elem_bytes;
    if (const json* init = ck_.find(v, "init")) b.init = parse_init(*init, key_path(path, "init"), b);
    constexpr uint64_t kMaxBytes = 16ull << 30;
    if (const json* c = ck_.find(v, "count")) {
      b.count = ck_.unsigned_int(*c, key_path(path, "count"), 1, kMaxBytes / w);
      if (b.init.source.count && *b.init.source.count != b.count)
        ck_.fail(key_path(path, "count"), std::to_string(b.count) + " elements, but init gives " +
                                              std::to_string(*b.init.source.count));
      check_field_counts(b, b.init, key_path(path, "init"));
    } else if (b.init.source.count) {
      b.count = *b.init.source.count;
      if (b.count == 0) ck_.fail(key_path(path, "init"), "no elements");
    } else {
      ck_.fail(path, "missing key 'count'");
    }
    plan_.buffer_index[b.name] = plan_.buffers.size();
    plan_.buffers.push_back(std::move(b));
  }

  // A buffer's (or a fill step's) initialiser: "zeros", or an object with one
  // of constant, random, sequence, file, values; for a buffer of structs
  // "zeros", a file or {"fields": {field: initialiser, ...}}.
  InitSpec parse_init(const json& init, const std::string& ip, const BufferSpec& b) const {
    InitSpec out;
    if (init.is_string()) {
      if (init.get<std::string>() != "zeros")
        ck_.fail(ip, "unknown init " + quote(init.get<std::string>()) +
                         " (expected \"zeros\" or an object with constant, random, sequence, file or values" +
                         (b.struct_type >= 0 ? std::string(", or fields for structs)") : std::string(")")));
      return out;
    }
    ck_.object(init, ip);
    if (b.struct_type < 0) {
      ck_.allow_keys(init, ip, {"constant", "random", "sequence", "file", "values"});
      out.source = parse_source(ck_, init, ip, b.type, {"constant", "random", "sequence", "file", "values"});
      return out;
    }
    ck_.allow_keys(init, ip, {"fields", "file"});
    const std::string tname = plan_.types.type(size_t(b.struct_type)).name;
    if (const json* f = ck_.find(init, "file")) {
      if (ck_.find(init, "fields")) ck_.fail(ip, "give only one of 'fields' and 'file'");
      out.source.kind = Source::Kind::Bytes;
      out.source.bytes = ck_.read_file(*f, key_path(ip, "file"));
      if (out.source.bytes.empty() || out.source.bytes.size() % b.elem_bytes != 0)
        ck_.fail(key_path(ip, "file"), "file has " + std::to_string(out.source.bytes.size()) +
                                           " bytes, not a non-zero multiple of " + std::to_string(b.elem_bytes) +
                                           " (struct " + quote(tname) + ")");
      out.source.count = out.source.bytes.size() / b.elem_bytes;
      return out;
    }
    const std::string fp = key_path(ip, "fields");
    const json& fields = ck_.object(ck_.require(init, "fields", ip), fp);
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      if (it.key() == "comment") continue;
      const std::string ep = key_path(fp, it.key());
      FieldInit fi;
      fi.leaf = plan_.types.leaf(ck_, size_t(b.struct_type), it.key(), ep);
      ck_.object(*it, ep);
      ck_.allow_keys(*it, ep, {"constant", "random", "sequence", "values"});
      fi.source = parse_source(ck_, *it, ep, fi.leaf.elem, {"constant", "random", "sequence", "values"});
      // Each byte has one initialiser ("tags" and "tags[1]" together would depend on key order).
      const uint64_t lo = fi.leaf.offset, hi = lo + fi.leaf.count * info(fi.leaf.elem).bytes;
      for (const FieldInit& g : out.fields) {
        const uint64_t glo = g.leaf.offset, ghi = glo + g.leaf.count * info(g.leaf.elem).bytes;
        if (lo < ghi && glo < hi) ck_.fail(ep, "overlaps field " + quote(g.leaf.name) + ", initialised too");
      }
      out.fields.push_back(std::move(fi));
    }
    return out;
  }

  // Per-field `values` give count x field-length elements.
  void check_field_counts(const BufferSpec& b, const InitSpec& init, const std::string& ip) const {
    for (const FieldInit& f : init.fields)
      if (f.source.count && *f.source.count != b.count * f.leaf.count)
        ck_.fail(key_path(key_path(ip, "fields"), f.leaf.name),
                 std::to_string(*f.source.count) + " values, but " + std::to_string(b.count) + " structs need " +
                     std::to_string(b.count * f.leaf.count));
  }

  std::string type_name(const BufferSpec& b) const {
    return b.struct_type >= 0 ? "struct " + quote(plan_.types.type(size_t(b.struct_type)).name)
                              : std::string(info(b.type).name);
  }

  void require_scalar(const BufferSpec& b, const std::string& path, const std::string& what) const {
    if (b.struct_type >= 0) ck_.fail(path, what + " needs a buffer of scalars; " + quote(b.name) + " holds " + type_name(b));
  }

  void parse_symbol(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"symbol", "type", "values", "buffer", "offset"});
    SymbolSpec s;
    s.path = path;
    s.symbol = ck_.string(ck_.require(v, "symbol", path), key_path(path, "symbol"));
    if (const json* o = ck_.find(v, "offset")) s.offset = ck_.unsigned_int(*o, key_path(path, "offset"), 0, 1ull << 32);
    const json* buf = ck_.find(v, "buffer");
    const json* vals = ck_.find(v, "values");
    if (buf && vals) ck_.fail(path, "give only one of 'values' and 'buffer'");
    if (buf) {
      if (ck_.find(v, "type")) ck_.fail(key_path(path, "type"), "a buffer's address is always 64-bit; drop 'type'");
      s.buffer = int(buffer_ref(*buf, key_path(path, "buffer")));
    } else {
      Elem e = ck_.elem(ck_.require(v, "type", path), key_path(path, "type"));
      s.bytes = parse_source(ck_, v, path, e, {"values"}).bytes;
      if (s.bytes.empty()) ck_.fail(key_path(path, "values"), "no values");
    }
    plan_.symbols.push_back(std::move(s));
  }

  void parse_group(const json& v, const std::string& path, std::vector<Step>& steps) {
    ck_.array(v, path);
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string sp = index_path(path, i);
      const json& item = ck_.object(v[i], sp);
      Step step;
      step.path = sp;
      if (ck_.find(item, "copy") || ck_.find(item, "fill") || ck_.find(item, "swap")) {
        parse_host_step(item, sp, step);
      } else if (ck_.find(item, "repeat") || (ck_.find(item, "launches") && !ck_.find(item, "kernel"))) {
        ck_.allow_keys(item, sp, {"repeat", "launches"});
        step.kind = Step::Kind::Group;
        step.group = std::make_unique<Group>();
        step.group->path = sp;
        parse_group(ck_.require(item, "launches", sp), key_path(sp, "launches"), step.group->steps);
        step.group->repeat = parse_repeat(ck_.require(item, "repeat", sp), key_path(sp, "repeat"));
      } else {
        step.launch = parse_launch(item, sp);
      }
      steps.push_back(std::move(step));
    }
  }

  // Host steps between launches: {"copy": {...}}, {"fill": name, "init": ...}, {"swap": [a, b]}.
  void parse_host_step(const json& item, const std::string& sp, Step& step) const {
    if (const json* c = ck_.find(item, "copy")) {
      ck_.allow_keys(item, sp, {"copy"});
      const std::string cp = key_path(sp, "copy");
      ck_.object(*c, cp);
      step.kind = Step::Kind::Copy;
      CopySpec& x = step.copy;
      if (ck_.find(*c, "from_symbol") || ck_.find(*c, "to_symbol")) {
        parse_symbol_copy(*c, cp, x);
        return;
      }
      ck_.allow_keys(*c, cp, {"from", "to", "from_offset", "to_offset", "count"});
      x.from = buffer_ref(ck_.require(*c, "from", cp), key_path(cp, "from"));
      x.to = buffer_ref(ck_.require(*c, "to", cp), key_path(cp, "to"));
      const BufferSpec& from = plan_.buffers[x.from];
      const BufferSpec& to = plan_.buffers[x.to];
      if (from.struct_type != to.struct_type || (from.struct_type < 0 && from.type != to.type))
        ck_.fail(cp, "buffers " + quote(from.name) + " (" + type_name(from) + ") and " + quote(to.name) + " (" +
                         type_name(to) + ") hold different element types");
      if (const json* o = ck_.find(*c, "from_offset"))
        x.from_offset = ck_.unsigned_int(*o, key_path(cp, "from_offset"), 0, from.count - 1);
      if (const json* o = ck_.find(*c, "to_offset"))
        x.to_offset = ck_.unsigned_int(*o, key_path(cp, "to_offset"), 0, to.count - 1);
      const uint64_t room = std::min(from.count - x.from_offset, to.count - x.to_offset);
      if (const json* n = ck_.find(*c, "count")) {
        x.count = ck_.unsigned_int(*n, key_path(cp, "count"), 1, ~0ull);
        if (x.count > room)
          ck_.fail(key_path(cp, "count"), std::to_string(x.count) + " elements do not fit: " + quote(from.name) + " has " +
                                              std::to_string(from.count - x.from_offset) + " after from_offset, " +
                                              quote(to.name) + " " + std::to_string(to.count - x.to_offset) +
                                              " after to_offset");
      } else {
        x.count = room;
      }
      return;
    }
    if (const json* f = ck_.find(item, "fill")) {
      ck_.allow_keys(item, sp, {"fill", "init"});
      step.kind = Step::Kind::Fill;
      step.fill.buffer = buffer_ref(*f, key_path(sp, "fill"));
      const BufferSpec& b = plan_.buffers[step.fill.buffer];
      step.fill.init = parse_init(ck_.require(item, "init", sp), key_path(sp, "init"), b);
      if (step.fill.init.source.count && *step.fill.init.source.count != b.count)
        ck_.fail(key_path(sp, "init"), "buffer " + quote(b.name) + " has " + std::to_string(b.count) +
                                           " elements, init gives " + std::to_string(*step.fill.init.source.count));
      check_field_counts(b, step.fill.init, key_path(sp, "init"));
      return;
    }
    const json& w = item.at("swap");
    ck_.allow_keys(item, sp, {"swap"});
    const std::string wp = key_path(sp, "swap");
    if (!w.is_array() || w.size() != 2) ck_.fail(wp, "expected an array of two buffer names");
    step.kind = Step::Kind::Swap;
    for (size_t i = 0; i < 2; ++i) step.swap[i] = buffer_ref(w[i], index_path(wp, i));
    const BufferSpec& a = plan_.buffers[step.swap[0]];
    const BufferSpec& b = plan_.buffers[step.swap[1]];
    if (step.swap[0] == step.swap[1]) ck_.fail(wp, "swaps " + quote(a.name) + " with itself");
    if (a.struct_type != b.struct_type || (a.struct_type < 0 && a.type != b.type) || a.count != b.count)
      ck_.fail(wp, "only buffers of the same element type and count can swap: " + quote(a.name) + " is " +
                       std::to_string(a.count) + " x " + type_name(a) + ", " + quote(b.name) + " " +
                       std::to_string(b.count) + " x " + type_name(b));
  }

  // {"from_symbol": var, "to": buffer, ...} or {"from": buffer, "to_symbol": var, ...}: the buffer side
  // in elements (to_offset / from_offset, count), the variable's in bytes (symbol_offset).
  void parse_symbol_copy(const json& c, const std::string& cp, CopySpec& x) const {
    const bool from_symbol = ck_.find(c, "from_symbol") != nullptr;
    if (from_symbol && ck_.find(c, "to_symbol")) ck_.fail(cp, "give only one of 'from_symbol' and 'to_symbol'");
    const char* symbol_key = from_symbol ? "from_symbol" : "to_symbol";
    const char* buffer_key = from_symbol ? "to" : "from";
    const char* offset_key = from_symbol ? "to_offset" : "from_offset";
    ck_.allow_keys(c, cp, {symbol_key, buffer_key, "symbol_offset", offset_key, "count"});
    x.kind = from_symbol ? CopySpec::Kind::FromSymbol : CopySpec::Kind::ToSymbol;
    x.symbol = ck_.string(ck_.require(c, symbol_key, cp), key_path(cp, symbol_key));
    const size_t buffer = buffer_ref(ck_.require(c, buffer_key, cp), key_path(cp, buffer_key));
    (from_symbol ? x.to : x.from) = buffer;
    const BufferSpec& b = plan_.buffers[buffer];
    uint64_t& offset = from_symbol ? x.to_offset : x.from_offset;
    if (const json* o = ck_.find(c, offset_key)) offset = ck_.unsigned_int(*o, key_path(cp, offset_key), 0, b.count - 1);
    if (const json* o = ck_.find(c, "symbol_offset"))
      x.symbol_offset = ck_.unsigned_int(*o, key_path(cp, "symbol_offset"), 0, 1ull << 32);
    if (const json* n = ck_.find(c, "count")) {
      x.count = ck_.unsigned_int(*n, key_path(cp, "count"), 1, ~0ull);
      if (x.count > b.count - offset)
        ck_.fail(key_path(cp, "count"), std::to_string(x.count) + " elements do not fit: " + quote(b.name) + " has " +
                                            std::to_string(b.count - offset) + " after " + offset_key);
    }
  }

  FaultExpect parse_fault_expect(const json& v, const std::string& path) const {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"kind", "message_contains"});
    FaultExpect f;
    f.path = path;
    if (const json* k = ck_.find(v, "kind")) {
      const std::string s = ck_.string(*k, key_path(path, "kind"));
      f.kind = fault_kind_from_name(s);
      if (!f.kind)
        ck_.fail(key_path(path, "kind"), "unknown fault kind " + quote(s) + " (expected one of: " + fault_kind_names() + ")");
    }
    if (const json* m = ck_.find(v, "message_contains"))
      f.message_contains = ck_.string(*m, key_path(path, "message_contains"));
    return f;
  }

  LaunchSpec parse_launch(const json& v, const std::string& path) {
    ck_.allow_keys(v, path, {"kernel", "grid", "block", "shared_bytes", "regs_per_thread",
                             "preferred_shared_carveout", "cooperative", "args", "expect_fault"});
    LaunchSpec l;
    l.path = path;
    l.kernel = ck_.string(ck_.require(v, "kernel", path), key_path(path, "kernel"));
    l.grid = ck_.dim3(ck_.require(v, "grid", path), key_path(path, "grid"));
    l.block = ck_.dim3(ck_.require(v, "block", path), key_path(path, "block"));
    if (const json* s = ck_.find(v, "shared_bytes"))
      l.shared_bytes = uint32_t(ck_.unsigned_int(*s, key_path(path, "shared_bytes"), 0, std::numeric_limits<uint32_t>::max()));
    if (const json* r = ck_.find(v, "regs_per_thread"))
      l.regs_per_thread = uint32_t(ck_.unsigned_int(*r, key_path(path, "regs_per_thread"), 1, 1024));
    if (const json* c = ck_.find(v, "preferred_shared_carveout"))
      l.preferred_shared_carveout = int(ck_.unsigned_int(*c, key_path(path, "preferred_shared_carveout"), 0, 100));
    if (const json* c = ck_.find(v, "cooperative")) {
      if (!c->is_boolean()) ck_.fail(key_path(path, "cooperative"), "expected true or false");
      else l.cooperative = c->get<bool>();
    }
    if (const json* a = ck_.find(v, "args")) {
      const std::string ap = key_path(path, "args");
      ck_.array(*a, ap);
      for (size_t i = 0; i < a->size(); ++i) l.args.push_back(parse_arg((*a)[i], index_path(ap, i)));
    }
    if (const json* f = ck_.find(v, "expect_fault")) l.expect_fault = parse_fault_expect(*f, key_path(path, "expect_fault"));
    return l;
  }

  ArgSpec parse_arg(const json& v, const std::string& path) {
    ck_.object(v, path);
    ArgSpec a;
    a.path = path;
    if (const json* b = ck_.find(v, "buffer")) {
      ck_.allow_keys(v, path, {"buffer", "offset"});
      a.kind = ArgSpec::Kind::Buffer;
      a.buffer = buffer_ref(*b, key_path(path, "buffer"));
      // An element's address, like &a[offset]; one past the end is a valid pointer too.
      if (const json* o = ck_.find(v, "offset"))
        a.offset = ck_.unsigned_int(*o, key_path(path, "offset"), 0, plan_.buffers[a.buffer].count);
    } else if (const json* t = ck_.find(v, "texture")) {
      ck_.allow_keys(v, path, {"texture"});
      a.kind = ArgSpec::Kind::Texture;
      a.buffer = texture_ref(*t, key_path(path, "texture"));
    } else if (const json* bytes = ck_.find(v, "bytes")) {
      ck_.allow_keys(v, path, {"bytes"});
      a.kind = ArgSpec::Kind::Bytes;
      ck_.array(*bytes, key_path(path, "bytes"));
      for (size_t i = 0; i < bytes->size(); ++i)
        a.bytes.push_back(uint8_t(ck_.value_bits((*bytes)[i], Elem::U8, index_path(key_path(path, "bytes"), i))));
      if (a.bytes.empty()) ck_.fail(key_path(path, "bytes"), "no bytes");
    } else if (const json* st = ck_.find(v, "struct")) {
      // A struct by value: its bytes at the declared layout, padding zero.
      ck_.allow_keys(v, path, {"struct", "value"});
      a.kind = ArgSpec::Kind::Bytes;
      const std::string sp = key_path(path, "struct");
      const std::string name = ck_.string(*st, sp);
      a.struct_type = plan_.types.find(name);
      if (a.struct_type < 0) ck_.fail(sp, "unknown struct type " + quote(name) + " (declare it in 'types')");
      a.bytes.assign(plan_.types.type(size_t(a.struct_type)).size, 0);
      encode_struct(ck_, plan_.types, size_t(a.struct_type), ck_.require(v, "value", path), key_path(path, "value"),
                    a.bytes.data());
    } else if (ck_.find(v, "type") || ck_.find(v, "value")) {
      ck_.allow_keys(v, path, {"type", "value"});
      a.kind = ArgSpec::Kind::Scalar;
      a.type = ck_.elem(ck_.require(v, "type", path), key_path(path, "type"));
      a.bits = ck_.value_bits(ck_.require(v, "value", path), a.type, key_path(path, "value"));
    } else {
      ck_.fail(path, "expected {\"buffer\": name}, {\"texture\": name}, {\"type\": t, \"value\": v}, "
                     "{\"struct\": T, \"value\": {...}} or "
                     "{\"bytes\": [...]}");
    }
    return a;
  }

  size_t texture_ref(const json& v, const std::string& path) const {
    const std::string name = ck_.string(v, path);
    auto it = plan_.texture_index.find(name);
    if (it == plan_.texture_index.end()) ck_.fail(path, "unknown texture or surface " + quote(name));
    return it->second;
  }

  /// One of `names` (a string key of `v`), as its index; `fallback` when absent.
  size_t choice(const json& v, const char* key, const std::string& path, std::initializer_list<const char*> names,
                size_t fallback) const {
    const json* j = ck_.find(v, key);
    if (!j) return fallback;
    const std::string s = ck_.string(*j, key_path(path, key));
    size_t i = 0;
    std::string list;
    for (const char* n : names) {
      if (s == n) return i;
      list += std::string(list.empty() ? "" : ", ") + n;
      ++i;
    }
    ck_.fail(key_path(path, key), "unknown value " + quote(s) + " (expected " + list + ")");
  }

  void parse_textures(const json& arr) {
    ck_.array(arr, "textures");
    for (size_t i = 0; i < arr.size(); ++i) {
      const json& v = arr[i];
      const std::string path = index_path("textures", i);
      ck_.object(v, path);
      ck_.allow_keys(v, path, {"name", "kind", "buffer", "resource", "format", "channels", "width", "height", "depth",
                               "layers", "cubemap", "pitch_bytes", "address", "filter", "read",
                               "normalized_coords"});
      TextureSpec t;
      t.path = path;
      t.name = ck_.string(ck_.require(v, "name", path), key_path(path, "name"));
      if (t.name.empty() || plan_.texture_index.count(t.name))
        ck_.fail(key_path(path, "name"), "empty or duplicate texture name " + quote(t.name));
      t.surface = choice(v, "kind", path, {"texture", "surface"}, 0) == 1;
      t.buffer = buffer_ref(ck_.require(v, "buffer", path), key_path(path, "buffer"));
      exec::TexResource& r = t.resource;
      r.kind = exec::TexResourceKind(choice(v, "resource", path, {"linear", "pitch2d", "array"}, 2));
      r.format = exec::TexelFormat(
          choice(v, "format", path, {"u8", "s8", "u16", "s16", "u32", "s32", "f16", "f32"}, 7));
      auto dim = [&](const char* key, uint64_t lo, uint64_t dflt) {
        const json* j = ck_.find(v, key);
        return j ? uint32_t(ck_.unsigned_int(*j, key_path(path, key), lo, 1u << 30)) : uint32_t(dflt);
      };
      r.channels = uint8_t(dim("channels", 1, 1));
      r.width = uint32_t(ck_.unsigned_int(ck_.require(v, "width", path), key_path(path, "width"), 1, 1u << 30));
      r.height = dim("height", 1, 1);
      r.depth = dim("depth", 1, 1);
      r.layers = dim("layers", 0, 0);
      r.pitch_bytes = dim("pitch_bytes", 0, 0);
      if (const json* c = ck_.find(v, "cubemap")) {
        if (!c->is_boolean()) ck_.fail(key_path(path, "cubemap"), "expected true or false");
        r.cubemap = c->get<bool>();
      }
      if (const json* a = ck_.find(v, "address")) {
        // One mode for every axis, or one per axis (x, y, z).
        const std::string ap = key_path(path, "address");
        static const char* const modes[] = {"wrap", "clamp", "mirror", "border"};
        auto mode = [&](const json& m, const std::string& mp) {
          const std::string s = ck_.string(m, mp);
          for (unsigned k = 0; k < 4; ++k)
            if (s == modes[k]) return exec::TexAddressMode(k);
          ck_.fail(mp, "unknown address mode " + quote(s) + " (expected wrap, clamp, mirror, border)");
        };
        if (a->is_array()) {
          if (a->empty() || a->size() > 3) ck_.fail(ap, "expected 1 to 3 address modes");
          for (size_t k = 0; k < 3; ++k) t.sampler.address[k] = mode((*a)[std::min(k, a->size() - 1)], index_path(ap, std::min(k, a->size() - 1)));
        } else {
          t.sampler.address[0] = t.sampler.address[1] = t.sampler.address[2] = mode(*a, ap);
        }
      }
      t.sampler.filter = exec::TexFilterMode(choice(v, "filter", path, {"point", "linear"}, 0));
      t.sampler.read_mode = exec::TexReadMode(choice(v, "read", path, {"element", "normalized"}, 0));
      if (const json* n = ck_.find(v, "normalized_coords")) {
        if (!n->is_boolean()) ck_.fail(key_path(path, "normalized_coords"), "expected true or false");
        t.sampler.normalized_coords = n->get<bool>();
      }
      plan_.texture_index[t.name] = plan_.textures.size();
      plan_.textures.push_back(std::move(t));
    }
  }

  RepeatSpec parse_repeat(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"until_zero", "times", "max_iterations", "reset"});
    RepeatSpec r;
    r.path = path;
    const json* until = ck_.find(v, "until_zero");
    const json* times = ck_.find(v, "times");
    if (until && times) ck_.fail(path, "give only one of 'until_zero' and 'times'");
    if (!until && !times) ck_.fail(path, "missing key 'until_zero' (or 'times')");
    if (times) {
      r.times = ck_.unsigned_int(*times, key_path(path, "times"), 0, ~0ull);
      if (ck_.find(v, "max_iterations")) ck_.fail(key_path(path, "max_iterations"), "applies to 'until_zero' only");
    } else {
      r.flag = buffer_ref(*until, key_path(path, "until_zero"));
      require_scalar(plan_.buffers[*r.flag], key_path(path, "until_zero"), "a flag");
    }
    if (const json* m = ck_.find(v, "max_iterations"))
      r.max_iterations = ck_.unsigned_int(*m, key_path(path, "max_iterations"), 1, ~0ull);
    if (const json* reset = ck_.find(v, "reset")) {
      const std::string rp = key_path(path, "reset");
      ck_.object(*reset, rp);
      for (auto it = reset->begin(); it != reset->end(); ++it) {
        const std::string ep = key_path(rp, it.key());
        auto bi = plan_.buffer_index.find(it.key());
        if (bi == plan_.buffer_index.end()) ck_.fail(ep, "unknown buffer " + quote(it.key()));
        ResetSpec rs;
        rs.buffer = bi->second;
        require_scalar(plan_.buffers[rs.buffer], ep, "reset");
        Elem e = plan_.buffers[rs.buffer].type;
        if (it->is_object()) {
          ck_.allow_keys(*it, ep, {"fill"});
          rs.fill = true;
          rs.bits = ck_.value_bits(ck_.require(*it, "fill", ep), e, key_path(ep, "fill"));
        } else {
          rs.bits = ck_.value_bits(*it, e, ep);
        }
        r.resets.push_back(rs);
      }
    }
    return r;
  }

  void parse_dump(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"buffer", "file", "format"});
    DumpSpec d;
    d.path = path;
    d.buffer = buffer_ref(ck_.require(v, "buffer", path), key_path(path, "buffer"));
    d.file = ck_.string(ck_.require(v, "file", path), key_path(path, "file"));
    const BufferSpec& b = plan_.buffers[d.buffer];
    if (d.file.empty()) ck_.fail(key_path(path, "file"), "empty file name");
    if (const json* f = ck_.find(v, "format")) {
      std::string s = ck_.string(*f, key_path(path, "format"));
      if (s == "text") {
        d.text = true;
        require_scalar(b, key_path(path, "format"), "text format");
      }
      else if (s != "binary") ck_.fail(key_path(path, "format"), "unknown format " + quote(s) + " (expected binary or text)");
    }
    plan_.dumps.push_back(std::move(d));
  }

  void parse_expect(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"buffer", "field", "start", "count", "stride", "values", "file", "constant", "sorted",
                             "min", "max", "sum", "tolerance", "relative_tolerance"});
    ExpectSpec x;
    x.path = path;
    x.buffer = buffer_ref(ck_.require(v, "buffer", path), key_path(path, "buffer"));
    const BufferSpec& b = plan_.buffers[x.buffer];
    parse_expect_selection(v, path, b, x);
    const uint64_t n = x.count * (x.field ? x.field->count : 1);

    const bool range = ck_.find(v, "min") || ck_.find(v, "max");
    const json* sum = ck_.find(v, "sum");
    const bool data = ck_.find(v, "values") || ck_.find(v, "file") || ck_.find(v, "constant");
    const int checks = int(range) + int(sum != nullptr) + int(data);
    if (checks != 1)
      ck_.fail(path, std::string(checks == 0 ? "missing the data" : "give only one check") +
                         ": one of 'values', 'file' or 'constant' (optionally 'sorted'), 'min'/'max', or 'sum'");
    if (const json* t = ck_.find(v, "tolerance")) x.tolerance = ck_.number(*t, key_path(path, "tolerance"));
    if (const json* t = ck_.find(v, "relative_tolerance"))
      x.relative_tolerance = ck_.number(*t, key_path(path, "relative_tolerance"));
    if (x.tolerance < 0 || x.relative_tolerance < 0) ck_.fail(path, "tolerances must not be negative");
    if (const json* s = ck_.find(v, "sorted")) {
      if (!s->is_boolean()) ck_.fail(key_path(path, "sorted"), "expected true or false");
      if (!data) ck_.fail(key_path(path, "sorted"), "applies to 'values', 'file' and 'constant' only");
      if (s->get<bool>()) x.check = ExpectSpec::Check::Sorted;
    }
    if (range) {
      if (ck_.find(v, "tolerance") || ck_.find(v, "relative_tolerance"))
        ck_.fail(path, "'min'/'max' take no tolerance");
      x.check = ExpectSpec::Check::Range;
      if (const json* m = ck_.find(v, "min")) x.min = ck_.value_bits(*m, x.type, key_path(path, "min"));
      if (const json* m = ck_.find(v, "max")) x.max = ck_.value_bits(*m, x.type, key_path(path, "max"));
      if (x.min && x.max && compare_values(x.type, *x.min, *x.max) > 0) ck_.fail(path, "min is greater than max");
    } else if (sum) {
      x.check = ExpectSpec::Check::Sum;
      x.sum = ck_.value_bits(*sum, sum_type(x.type), key_path(path, "sum"));
    } else {
      x.want = parse_source(ck_, v, path, x.type, {"values", "file", "constant"});
      if (x.want.count && *x.want.count != n)
        ck_.fail(path, (x.field || x.count != b.count ? "the selection has " : "buffer " + quote(b.name) + " has ") +
                           std::to_string(n) + " elements, expected data has " + std::to_string(*x.want.count));
    }
    plan_.expects.push_back(std::move(x));
  }

  // start/count/stride (elements of the buffer) and, for structs, the field.
  void parse_expect_selection(const json& v, const std::string& path, const BufferSpec& b, ExpectSpec& x) const {
    if (const json* f = ck_.find(v, "field")) {
      const std::string fp = key_path(path, "field");
      if (b.struct_type < 0) ck_.fail(fp, "buffer " + quote(b.name) + " holds " + type_name(b) + ", not structs");
      x.field = plan_.types.leaf(ck_, size_t(b.struct_type), ck_.string(*f, fp), fp);
      x.type = x.field->elem;
    } else if (b.struct_type >= 0) {
      ck_.fail(path, "buffer " + quote(b.name) + " holds " + type_name(b) + ": name the 'field' to check");
    } else {
      x.type = b.type;
    }
    if (const json* s = ck_.find(v, "start")) x.start = ck_.unsigned_int(*s, key_path(path, "start"), 0, b.count - 1);
    if (const json* s = ck_.find(v, "stride")) x.stride = ck_.unsigned_int(*s, key_path(path, "stride"), 1, ~0ull);
    const uint64_t available = (b.count - x.start + x.stride - 1) / x.stride;
    if (const json* c = ck_.find(v, "count")) {
      x.count = ck_.unsigned_int(*c, key_path(path, "count"), 1, ~0ull);
      if (x.count > available)
        ck_.fail(key_path(path, "count"), std::to_string(x.count) + " elements from start " + std::to_string(x.start) +
                                              " with stride " + std::to_string(x.stride) + " run past the end of " +
                                              quote(b.name) + " (" + std::to_string(b.count) + " elements; at most " +
                                              std::to_string(available) + " fit)");
    } else {
      x.count = available;
    }
  }

  const Checker& ck_;
  LaunchPlan& plan_;
};

}  // namespace

LaunchPlan parse_launch_plan(const std::string& text, const std::string& display_name, const std::string& base_dir) {
  json root;
  try {
    // Comments (// and /* */) are allowed: launch files are written by hand.
    root = json::parse(text, nullptr, true, true);
  } catch (const json::exception& e) {
    // A syntax error (parse_error, with its line and column) or a number
    // too large for a double (out_of_range 406, found by fuzz_launch_file).
    std::string msg = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix; keep "parse error at line L, column C: ...".
    if (auto close = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      msg = msg.substr(close + 2);
    // The overflow names the number but not where it is: give its line.
    if (const size_t open = msg.find('\''), close = msg.rfind('\'');
        e.id == 406 && open != std::string::npos && close > open + 1) {
      const size_t at = text.find(msg.substr(open + 1, close - open - 1));
      if (at != std::string::npos)
        msg += " at line " + std::to_string(1 + std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n'));
    }
    throw LaunchFileError("launch file " + display_name + ": JSON " + msg);
  }
  LaunchPlan plan;
  plan.display_name = display_name;
  plan.base_dir = base_dir;
  Checker ck(display_name, base_dir);
  Parser(ck, plan).parse(root);
  return plan;
}

}  // namespace tlmgpu::platform::launch_file
