// Launch files: struct types (the top-level "types" section) laid out as
// C/CUDA lays them out, their scalar fields by name ("pos.y", "cells[2].t"),
// and struct values encoded at that layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "platform/launch_file_checker.h"
#include "platform/launch_file_values.h"

namespace tlmgpu::platform::launch_file {

// One field of a declared struct: a scalar or a nested struct, optionally a
// fixed-size array of them.
struct StructField {
  std::string name;
  Elem elem = Elem::U8;
  int struct_type = -1;  // index into the type table; -1: a scalar of type `elem`
  uint64_t count = 1;    // array length (1 and !is_array: a single value)
  bool is_array = false;
  uint64_t offset = 0;   // bytes from the start of the struct
};

// A struct laid out as C/CUDA does: each field at the next multiple of its
// alignment (or at an explicit offset), the struct aligned to its most
// aligned field, its size rounded up to that alignment (tail padding).
struct StructType {
  std::string name;
  uint64_t size = 0;
  uint64_t align = 1;
  std::vector<StructField> fields;
};

// A scalar reached through nested structs and arrays, e.g. "pos.y" or
// "cells[2].t": `count` elements of `elem`, the first at `offset` bytes into
// the struct, the next ones adjacent.
struct FieldLeaf {
  std::string name;
  Elem elem = Elem::U8;
  uint64_t offset = 0;
  uint64_t count = 1;
};

class StructTable {
 public:
  /// Adds the struct types of a "types" array; a type may nest only earlier ones.
  void parse(const Checker& ck, const json& v, const std::string& path);

  // -1 when `name` is no declared struct.
  int find(const std::string& name) const;
  const StructType& type(size_t i) const { return types_[i]; }
  bool empty() const { return types_.empty(); }

  // Every scalar of struct `t`, nested structs and arrays of structs flattened.
  std::vector<FieldLeaf> leaves(size_t t) const;

  // The scalar field `name` of struct `t`: a leaf ("pos.y", "tags"), or one
  // element of a scalar array ("tags[3]").
  FieldLeaf leaf(const Checker& ck, size_t t, const std::string& name, const std::string& path) const;

 private:
  void parse_type(const Checker& ck, const json& v, const std::string& path);
  StructField parse_field(const Checker& ck, const json& v, const std::string& path, const StructType& st,
                          uint64_t end) const;
  uint64_t field_size(const StructField& f) const;
  uint64_t field_align(const StructField& f) const;
  void flatten(size_t t, const std::string& prefix, uint64_t base, std::vector<FieldLeaf>& out) const;

  std::vector<StructType> types_;
  std::map<std::string, size_t> index_;
};

// Writes a struct value given as a JSON object (field name -> value; nested
// structs as objects, arrays as arrays) into `out` at the declared layout.
// Fields left out are zero, like the rest of an aggregate initialiser in C.
void encode_struct(const Checker& ck, const StructTable& types, size_t t, const json& v, const std::string& path,
                   uint8_t* out);

}  // namespace tlmgpu::platform::launch_file
