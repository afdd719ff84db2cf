// PTX syntax phase: module directives, declarations and function bodies.
#include "model/ptx/ptx_syntax.h"

#include <algorithm>

namespace tlmgpu::ptx {

namespace {

using sv = std::string_view;

class SyntaxParser : PhaseReporter {
 public:
  SyntaxParser(const std::vector<Token>& tokens, Module& module, DiagnosticLog& log)
      : PhaseReporter(log),
        toks_(tokens),
        mod_(module),
        module_decls_(tree_.module_decls),
        module_names_(tree_.module_names),
        funcs_(tree_.funcs),
        func_names_(tree_.func_names),
        prototypes_(tree_.prototypes) {}

  SyntaxTree run() {
    parse_module();
    if (!saw_version_) error_at(1, 1, "missing .version directive");
    return std::move(tree_);
  }

 private:
  // ------------------------------------------------------------ token access

  const Token& peek(size_t k = 0) const {
    size_t i = std::min(pos_ + k, toks_.size() - 1);
    return toks_[i];
  }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool at_end() const { return toks_[pos_].kind == TokKind::End; }
  bool accept(char c) {
    if (peek().is(c)) {
      next();
      return true;
    }
    return false;
  }
  const Token& expect(char c, const char* context) {
    if (!peek().is(c))
      fail(peek(), std::string("expected '") + c + "' " + context + ", found " + describe(peek()));
    return next();
  }
  const Token& expect_name(const char* what) {
    const Token& t = peek();
    if (t.kind != TokKind::Word || t.text[0] == '.')
      fail(t, std::string("expected ") + what + ", found " + describe(t));
    return next();
  }
  uint64_t expect_uint(const char* what) {
    const Token& t = peek();
    uint64_t v = 0;
    if (t.kind != TokKind::Int) fail(t, std::string("expected ") + what + ", found " + describe(t));
    if (t.malformed) throw StmtAbort{};
    if (!parse_uint(t.text, v)) fail(t, "malformed integer '" + std::string(t.text) + "'");
    next();
    return v;
  }
  uint32_t expect_u32(const char* what) {
    const Token& t = peek();
    uint64_t v = expect_uint(what);
    if (v > UINT32_MAX) fail(t, std::string(what) + " out of range");
    return uint32_t(v);
  }

  /// Skips the rest of a line (.loc/.file have no terminating ';').
  /// `name: .callprototype (.param .b32 _) _ (.param .b64 _, ...);` names the
  /// signature of indirect calls; the callee's own parameters are matched
  /// when the call runs, so only the name is kept.
  void skip_call_prototype(FuncDef&) {
    prototypes_.insert(std::string(next().text));
    while (!at_end() && !peek().is(';')) next();
    expect(';', "after .callprototype");
  }

  void skip_line() {
    uint32_t line = peek().line;
    next();
    while (!at_end() && peek().line == line) next();
  }

  void skip_balanced_braces() {
    int depth = 0;
    while (!at_end()) {
      const Token& t = next();
      if (t.is('{')) ++depth;
      if (t.is('}') && --depth <= 0) return;
    }
  }

  static bool starts_module_directive(const Token& t) {
    return t.kind == TokKind::Word &&
           (t.text == ".visible" || t.text == ".weak" || t.text == ".extern" || t.text == ".entry" ||
            t.text == ".func" || t.text == ".global" || t.text == ".const" || t.text == ".version" ||
            t.text == ".target" || t.text == ".address_size" || t.text == ".common");
  }

  // ------------------------------------------------------------ module structure

  void parse_module() {
    while (!at_end()) {
      size_t start = pos_;
      try {
        parse_module_statement();
      } catch (const StmtAbort&) {
        recover_module(start);
      }
    }
  }

  void recover_module(size_t start) {
    if (pos_ == start) next();
    while (!at_end()) {
      const Token& t = peek();
      if (t.is(';')) {
        next();
        return;
      }
      if (t.is('{')) {
        skip_balanced_braces();
        return;
      }
      if (t.line_start && starts_module_directive(t)) return;
      next();
    }
  }

  void parse_module_statement() {
    const Token& t = peek();
    if (t.kind != TokKind::Word)
      fail(t, "unexpected " + describe(t) + " at module scope; expected a directive such as .entry or .global");
    sv w = t.text;
    if (w == ".version") return parse_version();
    if (w == ".target") {
      next();
      std::string target;
      do {
        const Token& n = expect_name("a target name");
        if (target.empty()) target = std::string(n.text);
      } while (accept(','));
      mod_.target = target;
      accept(';');  // nvcc writes none
      return;
    }
    if (w == ".address_size") {
      next();
      const Token& n = peek();
      uint32_t v = expect_u32("an address size");
      if (v != 64 && v != 32) fail(n, "invalid .address_size " + std::to_string(v));
      if (v != 64) fail(n, "unsupported syntax: .address_size 32 is not supported (only 64-bit PTX)");
      mod_.address_size = v;
      accept(';');
      return;
    }
    if (w == ".file" || w == ".loc") return skip_line();
    if (w == ".section") {
      next();
      while (!at_end() && !peek().is('{') && !peek().is(';')) next();
      if (peek().is('{')) skip_balanced_braces();
      else accept(';');
      return;
    }
    if (w == ".pragma") {
      next();
      while (peek().kind == TokKind::String || peek().is(',')) next();
      expect(';', "after .pragma");
      return;
    }
    bool is_extern = false;
    while (peek().kind == TokKind::Word &&
           (peek().text == ".visible" || peek().text == ".weak" || peek().text == ".extern" ||
            peek().text == ".common")) {
      if (peek().text == ".extern") is_extern = true;
      next();
    }
    const Token& d = peek();
    if (d.is_word(".entry") || d.is_word(".func")) return parse_function(is_extern);
    if (d.is_word(".global") || d.is_word(".const") || d.is_word(".shared") || d.is_word(".local")) {
      std::vector<Decl> decls = parse_var_decl(is_extern);
      for (auto& x : decls) add_module_var(std::move(x));
      return;
    }
    if (d.kind == TokKind::Word && d.text[0] == '.')
      fail(d, "unsupported syntax: unknown or unsupported directive '" + std::string(d.text) + "' at module scope");
    fail(d, "unexpected " + describe(d) + " at module scope; expected a directive such as .entry or .global");
  }

  void parse_version() {
    next();
    const Token& t = peek();
    if (t.kind != TokKind::Float && t.kind != TokKind::Int)
      fail(t, "expected a version number after .version, found " + describe(t));
    next();
    sv text = t.text;
    size_t dot = text.find('.');
    uint64_t major = 0, minor = 0;
    bool ok = dot != sv::npos && parse_uint(text.substr(0, dot), major) &&
              dot + 1 < text.size() && parse_uint(text.substr(dot + 1), minor);
    if (!ok) fail(t, "malformed PTX version '" + std::string(text) + "'");
    saw_version_ = true;
    if (major < 6 || major > 9)
      fail(t, "unsupported PTX version " + std::string(text) + " (supported: 6.0 to 9.x)");
    mod_.version_major = uint32_t(major);
    mod_.version_minor = uint32_t(minor);
    accept(';');
  }

  void add_module_var(Decl d) {
    if (module_names_.count(d.name)) {
      error_at(d.loc.line, d.loc.column, "duplicate declaration of '" + d.name + "'");
      return;
    }
    module_decls_.push_back(std::move(d));
    module_names_[module_decls_.back().name] = module_decls_.size() - 1;
  }

  /// After the state-space word: [.align N] [.vN] .type name[dims] [= init] {, name ...} ;
  std::vector<Decl> parse_var_decl(bool is_extern) {
    const Token& sp = next();
    Decl proto;
    proto.space = *space_of(sp.text.substr(1));
    proto.is_extern = is_extern;
    bool have_type = false;
    uint32_t vec = 1;
    while (peek().kind == TokKind::Word && peek().text[0] == '.') {
      const Token& m = next();
      sv w = m.text.substr(1);
      if (w == "align") {
        const Token& a = peek();
        proto.align = expect_u32("an alignment");
        if (proto.align == 0 || (proto.align & (proto.align - 1)))
          fail(a, "alignment must be a power of two");
      } else if (w == "v2" || w == "v4") {
        vec = w == "v2" ? 2 : 4;
      } else if (w == "ptr") {
      } else if (w == "attribute") {
        // .attribute(.managed): a __managed__ variable. To kernels it is a
        // .global variable; the CUDA runtime gives the host its address.
        expect('(', "after .attribute");
        const Token& a = peek();
        if (a.kind != TokKind::Word || a.text != ".managed")
          fail(a, "unsupported variable attribute " + describe(a) + " (supported: .managed)");
        next();
        expect(')', "after the variable attribute");
      } else if (w == "texref" || w == "surfref" || w == "samplerref") {
        fail(m, "unsupported: texture references (." + std::string(w) + "); use texture objects");
      } else if (auto ty = type_of(w); ty && *ty != DataType::Pred) {
        proto.type = *ty;
        have_type = true;
      } else {
        // Reported once; the names are still declared (marked erroneous) so
        // that their uses raise no follow-on "unknown symbol" errors.
        error(m, "unsupported syntax: unsupported qualifier '" + std::string(m.text) + "' in variable declaration");
        proto.erroneous = true;
      }
    }
    if (!have_type) fail(peek(), "expected a type in variable declaration, found " + describe(peek()));
    std::vector<Decl> out;
    do {
      Decl d = proto;
      const Token& n = expect_name("a variable name");
      d.name = std::string(n.text);
      d.loc = {n.line, n.column};
      d.elems = vec;
      try {
        parse_var_declarator(d, n);
      } catch (const StmtAbort&) {
        // Reported already; the name stays declared (erroneous, no data) so
        // that its uses raise no follow-on "unknown symbol" errors.
        d.erroneous = true;
        d.unsized = false;
        d.elems = std::max(d.elems, 1u);
        d.init.clear();
        d.has_init = false;
        out.push_back(std::move(d));
        skip_rest_of_statement();
        return out;
      }
      out.push_back(std::move(d));
    } while (accept(','));
    expect(';', "after variable declaration");
    return out;
  }

  /// Skips to just after the current statement's ';' (braces of an initializer
  /// included; not past an unmatched '}' or the next directive line).
  void skip_rest_of_statement() {
    int depth = 0;
    while (!at_end()) {
      const Token& t = peek();
      if (t.is(';')) {
        next();
        return;
      }
      if (t.is('}') && depth == 0) return;
      if (t.line_start && t.kind == TokKind::Word && t.text[0] == '.') return;
      if (t.is('{')) ++depth;
      if (t.is('}')) --depth;
      next();
    }
  }

  /// The rest of one variable declarator after its name: [dims] [= init].
  void parse_var_declarator(Decl& d, const Token& n) {
    while (accept('[')) {
      if (peek().is(']')) {
        d.unsized = true;
      } else {
        const Token& nt = peek();
        uint32_t k = expect_u32("an array size");
        if (uint64_t(d.elems) * k * d.elem_bytes() > (1ull << 31)) fail(nt, "array too large");
        d.elems *= k;
      }
      expect(']', "after array size");
    }
    if (accept('=')) parse_initializer(d);
    if (d.unsized) {
      if (d.has_init) {
        d.elems = uint32_t(d.init.size());
        d.unsized = false;
      } else if (!(d.is_extern && d.space == StateSpace::Shared)) {
        fail(n, "array '" + d.name + "' has no size");
      } else {
        d.elems = 0;
      }
    }
    if (d.has_init && d.init.size() > d.elems)
      fail(n, "too many initializers for '" + d.name + "'");
  }

  void parse_initializer(Decl& d) {
    if (d.space == StateSpace::Shared || d.space == StateSpace::Local)
      fail(peek(), "variables in " + std::string(space_name(d.space)) + " cannot have initializers");
    d.has_init = true;
    int depth = 0;
    bool expect_value = true;
    while (true) {
      const Token& t = peek();
      if (t.is('{')) {
        ++depth;
        next();
        expect_value = true;
        continue;
      }
      if (t.is('}') && depth > 0) {
        --depth;
        next();
        if (depth == 0) return;
        expect_value = false;
        continue;
      }
      if (t.is(',') && !expect_value) {
        if (depth == 0) return;  // next declarator
        next();
        expect_value = true;
        continue;
      }
      if (expect_value) {
        bool neg = accept('-');
        const Token& v = peek();
        Literal lit;
        if (!read_literal(v, neg, lit)) {
          if (v.kind != TokKind::Word || neg) fail(v, "expected a constant in initializer, found " + describe(v));
          read_symbol_initializer(lit);
        } else {
          next();
        }
        d.init.push_back(lit);
        expect_value = false;
        if (depth == 0) return;
        continue;
      }
      fail(t, "expected ',' or '}' in initializer, found " + describe(t));
    }
  }

  /// `name` or `generic(name)`: a function's or variable's address as an
  /// initial value (vtables, function-pointer tables); resolved after layout.
  void read_symbol_initializer(Literal& lit) {
    const Token& v = next();
    lit.kind = Literal::SymbolAddress;
    lit.loc = {v.line, v.column};
    if (v.text == "generic" && peek().is('(')) {
      next();
      lit.symbol = std::string(expect_name("a symbol name").text);
      expect(')', "after generic(symbol");
    } else {
      lit.symbol = std::string(v.text);
    }
  }

  /// .param [.align N] [.ptr] [.space] .type name[[N]]
  Decl parse_param_decl(bool kernel) {
    const Token& p = peek();
    if (p.is_word(".reg")) fail(p, "unsupported syntax: register parameters (.reg in a parameter list) are not supported");
    if (!p.is_word(".param")) fail(p, "expected .param in parameter list, found " + describe(p));
    next();
    Decl d;
    d.space = StateSpace::Param;
    d.kernel_param = kernel;
    bool have_type = false;
    while (peek().kind == TokKind::Word && peek().text[0] == '.') {
      const Token& m = next();
      sv w = m.text.substr(1);
      if (w == "align") {
        const Token& a = peek();
        d.align = expect_u32("an alignment");
        if (d.align == 0 || (d.align & (d.align - 1))) fail(a, "alignment must be a power of two");
      } else if (w == "ptr" || space_of(w)) {
      } else if (auto ty = type_of(w); ty && *ty != DataType::Pred) {
        d.type = *ty;
        have_type = true;
      } else {
        // Reported once; the parameter stays declared (erroneous) so that the
        // function is still defined and uses of the name raise no follow-on errors.
        error(m, "unsupported syntax: unsupported qualifier '" + std::string(m.text) + "' in parameter declaration");
        d.erroneous = true;
      }
    }
    if (!have_type) fail(peek(), "expected a type in parameter declaration, found " + describe(peek()));
    const Token& n = expect_name("a parameter name");
    d.name = std::string(n.text);
    d.loc = {n.line, n.column};
    if (accept('[')) {
      const Token& nt = peek();
      uint32_t k = expect_u32("an array size");
      if (uint64_t(k) * d.elem_bytes() > (1u << 20)) fail(nt, "parameter too large");
      d.elems = k;
      expect(']', "after array size");
    }
    return d;
  }

  void parse_param_list(FuncDef& f, std::vector<uint32_t>& out, bool kernel) {
    expect('(', "before parameter list");
    if (accept(')')) return;
    while (true) {
      Decl d = parse_param_decl(kernel);
      for (uint32_t i : f.params)
        if (f.decls[i].name == d.name) fail(peek(), "duplicate declaration of '" + d.name + "'");
      for (uint32_t i : f.rets)
        if (f.decls[i].name == d.name) fail(peek(), "duplicate declaration of '" + d.name + "'");
      f.decls.push_back(std::move(d));
      out.push_back(uint32_t(f.decls.size() - 1));
      if (accept(',')) continue;
      expect(')', "after parameter");
      return;
    }
  }

  void parse_function(bool is_extern) {
    const Token& kw = next();
    FuncDef f;
    f.is_entry = kw.text == ".entry";
    f.is_extern = is_extern;
    f.loc = {kw.line, kw.column};
    if (!f.is_entry && peek().is('(')) parse_param_list(f, f.rets, false);
    const Token& n = expect_name("a function name");
    f.name = std::string(n.text);
    if (peek().is('(')) parse_param_list(f, f.params, f.is_entry);
    // Performance directives between the signature and the body.
    while (peek().kind == TokKind::Word && peek().text[0] == '.') {
      const Token& d = next();
      sv w = d.text;
      if (w == ".maxntid" || w == ".reqntid") {
        auto& dims = w == ".maxntid" ? f.maxntid : f.reqntid;
        dims = {1, 1, 1};
        for (int i = 0; i < 3; ++i) {
          dims[size_t(i)] = expect_u32("a thread count");
          if (!accept(',')) break;
        }
      } else if (w == ".minnctapersm") {
        f.minnctapersm = expect_u32("a CTA count");
      } else if (w == ".maxnreg") {
        f.maxnreg = expect_u32("a register count");
      } else if (w == ".maxnctapersm" || w == ".maxclusterrank") {
        expect_u32("a count");
      } else if (w == ".noreturn" || w == ".explicitcluster") {
      } else if (w == ".reqnctapercluster") {
        do expect_u32("a count");
        while (accept(','));
      } else if (w == ".pragma") {
        while (peek().kind == TokKind::String) {
          sv s = next().text;
          f.pragmas.emplace_back(s.substr(1, s.size() >= 2 ? s.size() - 2 : 0));
          accept(',');
        }
        expect(';', "after .pragma");
      } else {
        // Reported and skipped with its arguments: the function is still
        // defined, so calls to it raise no follow-on "unknown function".
        error(d, "unsupported syntax: unknown or unsupported function directive '" + std::string(w) + "'");
        while (!at_end() && !peek().is('{') && !peek().is(';') &&
               !(peek().kind == TokKind::Word && peek().text[0] == '.'))
          next();
      }
    }
    if (accept(';')) {
      register_function(std::move(f), n);
      return;
    }
    const Token& open = peek();
    if (!open.is('{')) fail(open, "expected '{' or ';' after function signature, found " + describe(open));
    next();
    f.has_body = true;
    parse_body(f, open);
    register_function(std::move(f), n);
  }

  void register_function(FuncDef f, const Token& name_tok) {
    auto it = func_names_.find(f.name);
    if (it == func_names_.end()) {
      funcs_.push_back(std::move(f));
      func_names_[funcs_.back().name] = funcs_.size() - 1;
      return;
    }
    FuncDef& old = funcs_[it->second];
    if (old.has_body && f.has_body) {
      error(name_tok, "duplicate definition of function '" + f.name + "'");
      return;
    }
    if (old.is_entry != f.is_entry) {
      error(name_tok, "'" + f.name + "' redeclared as a different kind of function");
      return;
    }
    if (f.has_body) old = std::move(f);  // a prototype followed by the definition
  }

  // ------------------------------------------------------------ function bodies

  void parse_body(FuncDef& f, const Token& open) {
    std::vector<const Token*> opens{&open};
    while (true) {
      const Token& t = peek();
      const bool next_function = t.line_start && starts_module_directive(t) && t.text != ".global" &&
                                 t.text != ".const" && !(t.text == ".extern" && peek(1).is_word(".shared"));
      if (t.kind == TokKind::End || next_function) {
        const Token& o = *opens.back();
        error(o, "unterminated block '{' (missing '}')");
        return;
      }
      if (t.is('}')) {
        next();
        opens.pop_back();
        if (opens.empty()) return;
        f.items.push_back(Item{ItemKind::Close, 0, pos_ - 1, pos_});
        continue;
      }
      if (t.is('{')) {
        opens.push_back(&next());
        f.items.push_back(Item{ItemKind::Open, 0, pos_ - 1, pos_});
        continue;
      }
      size_t start = pos_;
      try {
        parse_body_statement(f);
      } catch (const StmtAbort&) {
        recover_statement(start);
      }
    }
  }

  /// Skips to the end of a bad statement: its ';', or the next line when the
  /// statement obviously ended without one.
  void recover_statement(size_t start) {
    if (pos_ > start && peek().line_start && !peek().is(')') && !peek().is(',')) return;
    if (pos_ == start) next();
    while (!at_end()) {
      const Token& t = peek();
      if (t.is(';')) {
        next();
        return;
      }
      if (t.is('}') || (t.is('{') && t.line_start)) return;
      if (t.line_start && starts_module_directive(t)) return;
      next();
    }
  }

  void parse_body_statement(FuncDef& f) {
    const Token& t = peek();
    if (t.kind == TokKind::Word) {
      sv w = t.text;
      if (w == ".reg" || w.substr(0, 5) == ".reg.") return parse_reg_decl(f);
      const bool ext = w == ".extern" && peek(1).is_word(".shared");
      if (ext) next();
      if (ext || w == ".local" || w == ".shared" || w == ".param") {
        for (auto& d : parse_var_decl(ext)) {
          f.decls.push_back(std::move(d));
          f.items.push_back(Item{ItemKind::Decl, uint32_t(f.decls.size() - 1), 0, 0});
        }
        return;
      }
      if (w == ".global" || w == ".const")
        fail(t, "unsupported syntax: '" + std::string(w) + "' declarations inside a function are not supported");
      if (w == ".pragma") {
        next();
        while (peek().kind == TokKind::String) {
          sv s = next().text;
          f.pragmas.emplace_back(s.substr(1, s.size() >= 2 ? s.size() - 2 : 0));
          if (f.pragmas.back() == "nounroll") f.items.push_back(Item{ItemKind::NoUnroll, 0, 0, 0});
          accept(',');
        }
        expect(';', "after .pragma");
        return;
      }
      if (w == ".loc" || w == ".file") return skip_line();
      if (w[0] == '.') fail(t, "unsupported syntax: unknown or unsupported directive '" + std::string(w) + "' in function body");
      if (peek(1).is(':') && w[0] != '%' && w.find('.') == sv::npos) {
        if (peek(2).is_word(".callprototype")) return skip_call_prototype(f);
        f.items.push_back(Item{ItemKind::Label, 0, pos_, pos_ + 1});
        next();
        next();
        return;
      }
      return scan_instruction(f);
    }
    if (t.is('@')) return scan_instruction(f);
    fail(t, "unexpected " + describe(t) + "; expected an instruction, label or declaration");
  }

  /// Records the token range of one instruction up to its ';'. Braces inside
  /// belong to vector operands.
  void scan_instruction(FuncDef& f) {
    size_t start = pos_;
    int depth = 0;
    while (true) {
      const Token& t = peek();
      if (t.kind == TokKind::End) fail(t, "expected ';' at end of instruction, found end of file");
      if (t.is(';')) break;  // never part of an operand
      if (t.is('{') || t.is('[') || t.is('(')) ++depth;
      if (t.is('}') || t.is(']') || t.is(')')) {
        if (depth == 0) fail(t, "expected ';' at end of instruction, found " + describe(t));
        --depth;
      }
      next();
    }
    f.items.push_back(Item{ItemKind::Instr, 0, start, pos_});
    next();
  }

  void parse_reg_decl(FuncDef& f) {
    // '.reg .b32 x' or, as the inline asm of cuda_fp16.h writes it, '.reg.b32 x'.
    const Token& rt = next();
    const bool fused = rt.text.size() > 4;
    const Token& tt = fused ? rt : peek();
    const sv type_text = fused ? rt.text.substr(4) : tt.text;
    if (tt.kind != TokKind::Word || type_text[0] != '.')
      fail(tt, "expected a type after .reg, found " + describe(tt));
    // An unsupported register type is reported here once; its names are still
    // declared (marked erroneous) so that their uses raise no follow-on errors.
    bool erroneous = false;
    std::optional<DataType> ty;
    if (type_text == ".v2" || type_text == ".v4" || type_text == ".v8") {
      error(tt, "unsupported syntax: vector registers (.reg " + std::string(type_text) + ") are not supported");
      if (!fused) next();
      if (peek().kind == TokKind::Word && peek().text[0] == '.') next();  // the element type
      erroneous = true;
    } else {
      ty = type_of(type_text.substr(1));
      if (!ty) {
        error(tt, "unsupported syntax: unsupported register type '" + std::string(type_text) + "'");
        erroneous = true;
      }
      if (!fused) next();
    }
    if (!ty) ty = DataType::B32;
    do {
      const Token& n = expect_name("a register name");
      Decl d;
      d.space = StateSpace::Reg;
      d.type = *ty;
      d.name = std::string(n.text);
      d.loc = {n.line, n.column};
      d.erroneous = erroneous;
      if (accept('<')) {
        const Token& ct = peek();
        d.range = expect_u32("a register count");
        if (d.range == 0 || d.range > (1u << 20)) fail(ct, "bad register count");
        expect('>', "after register count");
      }
      f.decls.push_back(std::move(d));
      f.items.push_back(Item{ItemKind::Decl, uint32_t(f.decls.size() - 1), 0, 0});
    } while (accept(','));
    expect(';', "after .reg declaration");
  }

  const std::vector<Token>& toks_;
  size_t pos_ = 0;
  Module& mod_;
  bool saw_version_ = false;
  SyntaxTree tree_;
  std::vector<Decl>& module_decls_;
  std::unordered_map<std::string, size_t>& module_names_;
  std::vector<FuncDef>& funcs_;
  std::unordered_map<std::string, size_t>& func_names_;
  std::unordered_set<std::string>& prototypes_;
};

}  // namespace

SyntaxTree parse_syntax(const std::vector<Token>& tokens, Module& module, DiagnosticLog& log) {
  return SyntaxParser(tokens, module, log).run();
}

}  // namespace tlmgpu::ptx
