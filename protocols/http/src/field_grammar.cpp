#include "dualfuzz/http/field_grammar.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "dualfuzz/http/byte_range.h"
#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {
namespace {

using detail::tchar;

bool digit(char c) { return c >= '0' && c <= '9'; }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool obs_text(char c) { return static_cast<unsigned char>(c) >= 0x80; }
bool vchar(char c) { return c > 0x20 && c < 0x7f; }

// A cursor over one field value: each rule consumes what it matches, or
// nothing and returns false.
struct Cursor {
  std::string_view s;
  std::size_t i = 0;
  bool end() const { return i == s.size(); }
  char peek() const { return end() ? '\0' : s[i]; }
  bool eat(char c) {
    if (peek() != c || end()) return false;
    ++i;
    return true;
  }
  void ows() {
    while (!end() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  bool token() {
    const std::size_t from = i;
    while (!end() && tchar(s[i])) ++i;
    return i > from;
  }
  // DQUOTE *( qdtext / quoted-pair ) DQUOTE (§5.6.4)
  bool quoted_string() {
    const std::size_t from = i;
    if (!eat('"')) return false;
    while (!end()) {
      const char c = s[i];
      if (c == '"') {
        ++i;
        return true;
      }
      if (c == '\\') {
        if (i + 1 == s.size()) break;
        const char q = s[i + 1];
        if (!(q == '\t' || q == ' ' || vchar(q) || obs_text(q))) break;
        i += 2;
        continue;
      }
      if (!(c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x5b) ||
            (c >= 0x5d && c <= 0x7e) || obs_text(c)))
        break;
      ++i;
    }
    i = from;
    return false;
  }
  // "(" *( ctext / quoted-pair / comment ) ")" (§5.6.5)
  bool comment(int depth = 0) {
    const std::size_t from = i;
    if (depth > 32 || !eat('(')) return false;
    while (!end()) {
      const char c = s[i];
      if (c == ')') {
        ++i;
        return true;
      }
      if (c == '(') {
        if (!comment(depth + 1)) break;
        continue;
      }
      if (c == '\\') {
        if (i + 1 == s.size() || !(s[i + 1] == '\t' || s[i + 1] == ' ' ||
                                   vchar(s[i + 1]) || obs_text(s[i + 1])))
          break;
        i += 2;
        continue;
      }
      if (!(c == '\t' || c == ' ' || (c >= 0x21 && c <= 0x27) ||
            (c >= 0x2a && c <= 0x5b) || (c >= 0x5d && c <= 0x7e) || obs_text(c)))
        break;
      ++i;
    }
    i = from;
    return false;
  }
  // *( OWS ";" OWS [ parameter ] ), parameter = token "=" ( token / quoted-string )
  // (§5.6.6); `bws`: BWS around "=" (transfer-parameter, RFC 9112 §7).
  bool parameters(bool bws = false) {
    for (;;) {
      const std::size_t from = i;
      ows();
      if (!eat(';')) {
        i = from;
        return true;
      }
      ows();
      if (!tchar(peek())) continue;  // ([ parameter ])
      token();
      if (bws) ows();
      if (!eat('=')) return false;
      if (bws) ows();
      if (!token() && !quoted_string()) return false;
    }
  }
};

// 1#element or #element (§5.6.1) of a sender: no empty elements.
template <typename Element>
bool list(std::string_view v, Element element, bool at_least_one) {
  Cursor c{v};
  c.ows();
  if (c.end()) return !at_least_one;
  for (;;) {
    if (!element(c)) return false;
    c.ows();
    if (c.end()) return true;
    if (!c.eat(',')) return false;
    c.ows();
    if (c.end()) return false;  // an empty last element
  }
}

bool whole(std::string_view v, bool (*rule)(Cursor&)) {
  Cursor c{v};
  return rule(c) && c.end();
}

bool media_type(Cursor& c) {
  return c.token() && c.eat('/') && c.token() && c.parameters();
}

// RFC 3986 characters of a URI-reference, with pct-encoding checked: the
// shape, not the full grammar of each component.
bool uri_chars(std::string_view v) {
  static constexpr std::string_view kOther = "-._~:/?#[]@!$&'()*+,;=";
  for (std::size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (c == '%') {
      if (i + 2 >= v.size() || !std::isxdigit(static_cast<unsigned char>(v[i + 1])) ||
          !std::isxdigit(static_cast<unsigned char>(v[i + 2])))
        return false;
      i += 2;
    } else if (!alpha(c) && !digit(c) && kOther.find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool delay_or_date(std::string_view v) {
  return imf_fixdate(v) || (!v.empty() && std::all_of(v.begin(), v.end(), digit));
}

bool digits(std::string_view v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), digit);
}

bool product(Cursor& c) {
  if (!c.token()) return false;
  if (c.eat('/') && !c.token()) return false;
  return true;
}

// product *( RWS ( product / comment ) ) (§10.2.4)
bool server(std::string_view v) {
  Cursor c{v};
  if (!product(c)) return false;
  while (!c.end()) {
    const std::size_t from = c.i;
    c.ows();
    if (c.i == from) return false;  // RWS
    if (!product(c) && !c.comment()) return false;
  }
  return true;
}

bool content_range(std::string_view v) {
  if (v.substr(0, 6) == "bytes ")
    return canonical_content_range(std::string(v)).has_value();
  Cursor c{v};
  // other-range-unit SP other-range-resp (*CHAR)
  return c.token() && c.eat(' ') &&
         std::all_of(v.begin() + static_cast<long>(c.i), v.end(), [](char x) {
           return x > 0 && static_cast<unsigned char>(x) < 0x80;
         });
}

// language-tag (RFC 5646), as its common form: 1*8ALPHA *( "-" 1*8alphanum ).
bool language_tag(Cursor& c) {
  std::size_t n = 0;
  while (!c.end() && alpha(c.peek()) && n < 8) ++c.i, ++n;
  if (n == 0) return false;
  while (c.peek() == '-') {
    ++c.i;
    n = 0;
    while (!c.end() && (alpha(c.peek()) || digit(c.peek())) && n < 8) ++c.i, ++n;
    if (n == 0) return false;
  }
  return true;
}

// challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ] (§11.3); a list
// of challenges and their parameters shares the commas, so only each
// element's start is read: an auth-scheme, or an auth-param.
bool challenges(std::string_view v) {
  Cursor c{v};
  c.ows();
  if (!c.token()) return false;  // the first element is a challenge
  for (;;) {
    // The rest of this element: SP token68 / auth-params / nothing.
    while (!c.end() && c.peek() != ',') {
      if (c.peek() == '"') {
        if (!c.quoted_string()) return false;
      } else if (static_cast<unsigned char>(c.peek()) < 0x20 && c.peek() != '\t') {
        return false;
      } else {
        ++c.i;
      }
    }
    if (c.end()) return true;
    ++c.i;  // ','
    c.ows();
    if (c.end() || c.peek() == ',') return false;  // empty element
  }
}

bool qvalue(Cursor& c) {
  // ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
  if (c.eat('0')) {
    if (c.eat('.'))
      for (int k = 0; k < 3 && digit(c.peek()); ++k) ++c.i;
    return true;
  }
  if (!c.eat('1')) return false;
  if (c.eat('.'))
    for (int k = 0; k < 3 && c.peek() == '0'; ++k) ++c.i;
  return true;
}

bool coding_with_weight(Cursor& c) {
  if (!c.token()) return false;  // content-coding, "identity" or "*" are tokens
  const std::size_t from = c.i;
  c.ows();
  if (!c.eat(';')) {
    c.i = from;
    return true;
  }
  c.ows();
  return (c.eat('q') || c.eat('Q')) && c.eat('=') && qvalue(c);
}

bool cache_directive(Cursor& c) {
  if (!c.token()) return false;
  if (c.eat('=')) return c.token() || c.quoted_string();
  return true;
}

bool tok(Cursor& c) { return c.token(); }
bool vary_member(Cursor& c) { return c.eat('*') || c.token(); }
bool transfer_coding(Cursor& c) { return c.token() && c.parameters(/*bws=*/true); }
bool protocol(Cursor& c) { return product(c); }

constexpr std::array kGrammars = {
    FieldGrammar{"accept-encoding", "RFC 9110 §12.5.3", "#( codings [ weight ] )",
                 [](std::string_view v) { return list(v, coding_with_weight, false); }},
    FieldGrammar{"accept-patch", "RFC 5789 §3.1", "1#media-type",
                 [](std::string_view v) { return list(v, media_type, true); }},
    FieldGrammar{"accept-ranges", "RFC 9110 §14.3", "1#range-unit",
                 [](std::string_view v) { return list(v, tok, true); }},
    FieldGrammar{"age", "RFC 9111 §5.1", "delta-seconds", digits},
    FieldGrammar{"allow", "RFC 9110 §10.2.1", "#method",
                 [](std::string_view v) { return list(v, tok, false); }},
    FieldGrammar{"cache-control", "RFC 9111 §5.2",
                 "#( token [ \"=\" ( token / quoted-string ) ] )",
                 [](std::string_view v) { return list(v, cache_directive, false); }},
    FieldGrammar{"connection", "RFC 9110 §7.6.1", "#connection-option",
                 [](std::string_view v) { return list(v, tok, false); }},
    FieldGrammar{"content-encoding", "RFC 9110 §8.4", "#content-coding",
                 [](std::string_view v) { return list(v, tok, false); }},
    FieldGrammar{"content-language", "RFC 9110 §8.5", "#language-tag",
                 [](std::string_view v) { return list(v, language_tag, false); }},
    FieldGrammar{"content-length", "RFC 9110 §8.6", "1*DIGIT", digits},
    FieldGrammar{"content-location", "RFC 9110 §8.7", "absolute-URI / partial-URI",
                 [](std::string_view v) { return !v.empty() && uri_chars(v); }},
    FieldGrammar{"content-range", "RFC 9110 §14.4",
                 "range-unit SP ( range-resp / unsatisfied-range )", content_range},
    FieldGrammar{"content-type", "RFC 9110 §8.3", "type \"/\" subtype parameters",
                 [](std::string_view v) { return whole(v, media_type); }},
    FieldGrammar{"date", "RFC 9110 §6.6.1, §5.6.7", "IMF-fixdate", imf_fixdate},
    FieldGrammar{"etag", "RFC 9110 §8.8.3", "[ W/ ] DQUOTE *etagc DQUOTE", entity_tag},
    FieldGrammar{"expires", "RFC 9111 §5.3, RFC 9110 §5.6.7", "IMF-fixdate", imf_fixdate},
    FieldGrammar{"last-modified", "RFC 9110 §8.8.2, §5.6.7", "IMF-fixdate", imf_fixdate},
    FieldGrammar{"location", "RFC 9110 §10.2.2", "URI-reference", uri_chars},
    FieldGrammar{"proxy-authenticate", "RFC 9110 §11.7.1", "1#challenge", challenges},
    FieldGrammar{"retry-after", "RFC 9110 §10.2.3", "HTTP-date / delay-seconds",
                 delay_or_date},
    FieldGrammar{"server", "RFC 9110 §10.2.4", "product *( RWS ( product / comment ) )",
                 server},
    FieldGrammar{"transfer-encoding", "RFC 9112 §6.1", "#transfer-coding",
                 [](std::string_view v) { return list(v, transfer_coding, false); }},
    FieldGrammar{"upgrade", "RFC 9110 §7.8", "#protocol",
                 [](std::string_view v) { return list(v, protocol, false); }},
    FieldGrammar{"vary", "RFC 9110 §12.5.5", "#( \"*\" / field-name )",
                 [](std::string_view v) { return list(v, vary_member, false); }},
    FieldGrammar{"www-authenticate", "RFC 9110 §11.6.1", "1#challenge", challenges},
};

}  // namespace

std::span<const FieldGrammar> field_grammars() { return kGrammars; }

const FieldGrammar* field_grammar(std::string_view name) {
  for (const FieldGrammar& g : kGrammars)
    if (g.name == name) return &g;
  return nullptr;
}

bool token(std::string_view v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), tchar);
}

bool entity_tag(std::string_view v) {
  if (v.substr(0, 2) == "W/") v.remove_prefix(2);
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') return false;
  // etagc = %x21 / %x23-7E / obs-text
  return std::all_of(v.begin() + 1, v.end() - 1, [](char c) {
    return c == 0x21 || (c >= 0x23 && c <= 0x7e) || obs_text(c);
  });
}

// day-name "," SP day SP month SP year SP hour ":" minute ":" second SP "GMT"
bool imf_fixdate(std::string_view v) {
  static constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu",
                                               "Fri", "Sat", "Sun"};
  static constexpr std::string_view kMonths[] = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (v.size() != 29 || v.substr(3, 2) != ", " || v[7] != ' ' || v[11] != ' ' ||
      v[16] != ' ' || v[19] != ':' || v[22] != ':' || v.substr(25) != " GMT")
    return false;
  auto two = [&](std::size_t at, int max) {
    return digit(v[at]) && digit(v[at + 1]) &&
           (v[at] - '0') * 10 + (v[at + 1] - '0') <= max;
  };
  return std::find(std::begin(kDays), std::end(kDays), v.substr(0, 3)) !=
             std::end(kDays) &&
         two(5, 31) && v.substr(5, 2) != "00" &&
         std::find(std::begin(kMonths), std::end(kMonths), v.substr(8, 3)) !=
             std::end(kMonths) &&
         digit(v[12]) && digit(v[13]) && digit(v[14]) && digit(v[15]) && two(17, 23) &&
         two(20, 59) && two(23, 60);
}

bool field_value_chars(std::string_view v) {
  return std::none_of(v.begin(), v.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

}  // namespace dualfuzz::http
