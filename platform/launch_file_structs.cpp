#include "platform/launch_file_structs.h"

#include <algorithm>

namespace tlmgpu::platform::launch_file {

void StructTable::parse(const Checker& ck, const json& v, const std::string& path) {
  ck.array(v, path);
  for (size_t i = 0; i < v.size(); ++i) parse_type(ck, v[i], index_path(path, i));
}

int StructTable::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : int(it->second);
}

std::vector<FieldLeaf> StructTable::leaves(size_t t) const {
  std::vector<FieldLeaf> out;
  flatten(t, "", 0, out);
  return out;
}

FieldLeaf StructTable::leaf(const Checker& ck, size_t t, const std::string& name, const std::string& path) const {
  std::vector<FieldLeaf> all = leaves(t);
  for (const FieldLeaf& l : all)
    if (l.name == name) return l;
  // "tags[3]": one element of a scalar array field.
  if (size_t open = name.rfind('['); open != std::string::npos && name.back() == ']') {
    std::string base = name.substr(0, open), idx = name.substr(open + 1, name.size() - open - 2);
    for (const FieldLeaf& l : all) {
      if (l.name != base || idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) continue;
      uint64_t k = std::stoull(idx);
      if (k >= l.count)
        ck.fail(path, "index " + idx + " is out of range for field " + quote(base) + " of " + std::to_string(l.count) +
                          " elements");
      return FieldLeaf{name, l.elem, l.offset + k * info(l.elem).bytes, 1};
    }
  }
  std::string list;
  for (const FieldLeaf& l : all) list += (list.empty() ? "" : ", ") + l.name;
  ck.fail(path, "struct " + quote(types_[t].name) + " has no scalar field " + quote(name) + " (fields: " + list + ")");
}

void StructTable::parse_type(const Checker& ck, const json& v, const std::string& path) {
  ck.object(v, path);
  ck.allow_keys(v, path, {"name", "fields", "align"});
  StructType st;
  st.name = ck.string(ck.require(v, "name", path), key_path(path, "name"));
  if (st.name.empty()) ck.fail(key_path(path, "name"), "empty type name");
  for (const ElemInfo& e : kElems)
    if (st.name == e.name) ck.fail(key_path(path, "name"), quote(st.name) + " is an element type name");
  if (index_.count(st.name)) ck.fail(key_path(path, "name"), "duplicate type " + quote(st.name));
  const std::string fp = key_path(path, "fields");
  const json& fields = ck.array(ck.require(v, "fields", path), fp);
  if (fields.empty()) ck.fail(fp, "a struct needs at least one field");
  uint64_t end = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    StructField f = parse_field(ck, fields[i], index_path(fp, i), st, end);
    end = f.offset + f.count * field_size(f);
    st.align = std::max(st.align, field_align(f));
    st.fields.push_back(std::move(f));
  }
  if (const json* a = ck.find(v, "align")) {
    // Like __align__(n): may raise the alignment, never lower it.
    uint64_t al = ck.unsigned_int(*a, key_path(path, "align"), 1, 4096);
    if ((al & (al - 1)) != 0) ck.fail(key_path(path, "align"), "alignment " + std::to_string(al) + " is not a power of two");
    if (al < st.align)
      ck.fail(key_path(path, "align"), "alignment " + std::to_string(al) + " is below the natural alignment " +
                                           std::to_string(st.align) + " of its fields");
    st.align = al;
  }
  st.size = (end + st.align - 1) / st.align * st.align;
  index_[st.name] = types_.size();
  types_.push_back(std::move(st));
}

StructField StructTable::parse_field(const Checker& ck, const json& v, const std::string& path, const StructType& st,
                                     uint64_t end) const {
  ck.object(v, path);
  ck.allow_keys(v, path, {"name", "type", "count", "offset"});
  StructField f;
  f.name = ck.string(ck.require(v, "name", path), key_path(path, "name"));
  if (f.name.empty() || f.name.find_first_of(".[]") != std::string::npos)
    ck.fail(key_path(path, "name"), "field names must be non-empty and free of '.', '[' and ']'");
  for (const StructField& g : st.fields)
    if (g.name == f.name) ck.fail(key_path(path, "name"), "duplicate field " + quote(f.name));
  const std::string tp = key_path(path, "type");
  const std::string tname = ck.string(ck.require(v, "type", path), tp);
  f.struct_type = find(tname);
  if (f.struct_type < 0) {
    bool scalar = false;
    for (const ElemInfo& e : kElems) scalar = scalar || tname == e.name;
    // Only earlier types can be nested, so a struct cannot contain itself.
    if (!scalar)
      ck.fail(tp, "unknown type " + quote(tname) + " (an element type: " + elem_names() +
                      "; or a struct declared earlier in 'types')");
    f.elem = ck.elem(ck.require(v, "type", path), tp);
  }
  if (const json* c = ck.find(v, "count")) {
    f.count = ck.unsigned_int(*c, key_path(path, "count"), 1, 1ull << 24);
    f.is_array = true;
  }
  const uint64_t al = field_align(f);
  const uint64_t natural = (end + al - 1) / al * al;
  if (const json* o = ck.find(v, "offset")) {
    f.offset = ck.unsigned_int(*o, key_path(path, "offset"), 0, 1ull << 32);
    if (f.offset % al != 0)
      ck.fail(key_path(path, "offset"), "offset " + std::to_string(f.offset) + " is not a multiple of the field's alignment " +
                                            std::to_string(al));
    if (f.offset < end)
      ck.fail(key_path(path, "offset"), "offset " + std::to_string(f.offset) + " overlaps the previous field, which ends at " +
                                            std::to_string(end));
  } else {
    f.offset = natural;
  }
  return f;
}

uint64_t StructTable::field_size(const StructField& f) const {
  return f.struct_type >= 0 ? types_[size_t(f.struct_type)].size : info(f.elem).bytes;
}

uint64_t StructTable::field_align(const StructField& f) const {
  return f.struct_type >= 0 ? types_[size_t(f.struct_type)].align : info(f.elem).bytes;
}

void StructTable::flatten(size_t t, const std::string& prefix, uint64_t base, std::vector<FieldLeaf>& out) const {
  for (const StructField& f : types_[t].fields) {
    if (f.struct_type < 0) {
      out.push_back(FieldLeaf{prefix + f.name, f.elem, base + f.offset, f.count});
      continue;
    }
    const uint64_t sz = types_[size_t(f.struct_type)].size;
    for (uint64_t k = 0; k < f.count; ++k) {
      std::string p = prefix + f.name + (f.is_array ? "[" + std::to_string(k) + "]" : "") + ".";
      flatten(size_t(f.struct_type), p, base + f.offset + k * sz, out);
    }
  }
}

void encode_struct(const Checker& ck, const StructTable& types, size_t t, const json& v, const std::string& path,
                   uint8_t* out) {
  const StructType& st = types.type(t);
  ck.object(v, path);
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() == "comment") continue;
    const StructField* f = nullptr;
    for (const StructField& g : st.fields)
      if (g.name == it.key()) f = &g;
    if (!f) {
      std::string list;
      for (const StructField& g : st.fields) list += (list.empty() ? "" : ", ") + g.name;
      ck.fail(path, "struct " + quote(st.name) + " has no field " + quote(it.key()) + " (fields: " + list + ")");
    }
    const std::string fp = key_path(path, it.key());
    auto put = [&](const json& one, const std::string& ep, uint64_t k) {
      if (f->struct_type >= 0) {
        encode_struct(ck, types, size_t(f->struct_type), one, ep,
                      out + f->offset + k * types.type(size_t(f->struct_type)).size);
      } else {
        const unsigned w = info(f->elem).bytes;
        store_bits(out + f->offset + k * w, w, ck.value_bits(one, f->elem, ep));
      }
    };
    if (!f->is_array) {
      put(*it, fp, 0);
      continue;
    }
    ck.array(*it, fp);
    if (it->size() > f->count)
      ck.fail(fp, std::to_string(it->size()) + " values for an array of " + std::to_string(f->count));
    for (size_t k = 0; k < it->size(); ++k) put((*it)[k], index_path(fp, k), k);
  }
}

}  // namespace tlmgpu::platform::launch_file
