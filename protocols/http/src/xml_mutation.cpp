#include "dualfuzz/http/xml_mutation.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

namespace dualfuzz::http {
namespace {

std::size_t pick(std::mt19937_64& rng, std::size_t n) { return n ? rng() % n : 0; }
template <class T, std::size_t N>
const T& one_of(std::mt19937_64& rng, const T (&a)[N]) {
  return a[pick(rng, N)];
}

// RFC 4918 §14 (elements) and §15 (live properties), RFC 4331's quota
// properties, and dead properties of our own namespace.
const char* kNames[] = {"propfind",
                        "prop",
                        "allprop",
                        "propname",
                        "include",
                        "propertyupdate",
                        "set",
                        "remove",
                        "lockinfo",
                        "lockscope",
                        "locktype",
                        "exclusive",
                        "shared",
                        "write",
                        "owner",
                        "href",
                        "creationdate",
                        "displayname",
                        "getcontentlanguage",
                        "getcontentlength",
                        "getcontenttype",
                        "getetag",
                        "getlastmodified",
                        "lockdiscovery",
                        "resourcetype",
                        "supportedlock",
                        "collection",
                        "activelock",
                        "depth",
                        "timeout",
                        "locktoken",
                        "lockroot",
                        "quota-used-bytes",
                        "quota-available-bytes",
                        "color",
                        "size"};
const char* kPrefixes[] = {"D:", "D:", "D:", "Z:", "", "X:"};
const char* kNamespaces[] = {"DAV:", "DAV:", "urn:z",
                             "",     "dav:", "http://example.com/ns/"};
const char* kTexts[] = {
    "",
    "red",
    "0",
    "12",
    " ",
    "infinity",
    "Second-60",
    "http://localhost/a",
    "&amp;&lt;&gt;",
    "&#233;&#x263A;",
    "<![CDATA[<x/>]]>",
    "<!-- c -->",
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"};
#define DAV_XML "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
const char* kDocuments[] = {
    DAV_XML "<D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>",
    DAV_XML
    "<D:propfind xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:prop><D:getetag/><Z:color/>"
    "</D:prop></D:propfind>",
    DAV_XML
    "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop>"
    "<Z:color>red</Z:color></D:prop></D:set></D:propertyupdate>",
    DAV_XML
    "<D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope>"
    "<D:locktype><D:write/></D:locktype><D:owner>df</D:owner></D:lockinfo>"};
#undef DAV_XML

// The body as tags and text between them.
struct Token {
  enum Kind { Text, Start, End, Empty, Other } kind;
  std::string text;
};

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '<') {
      std::size_t j = s.find('<', i);
      if (j == std::string_view::npos) j = s.size();
      out.push_back({Token::Text, std::string(s.substr(i, j - i))});
      i = j;
      continue;
    }
    std::size_t j = s.find('>', i);
    if (j == std::string_view::npos) {  // an unterminated tag: text
      out.push_back({Token::Text, std::string(s.substr(i))});
      break;
    }
    std::string tag(s.substr(i, j + 1 - i));
    Token::Kind k = tag.size() > 2 && (tag[1] == '?' || tag[1] == '!') ? Token::Other
                    : tag.size() > 2 && tag[1] == '/'                  ? Token::End
                    : tag.size() > 2 && tag[tag.size() - 2] == '/'     ? Token::Empty
                                                                       : Token::Start;
    out.push_back({k, std::move(tag)});
    i = j + 1;
  }
  return out;
}

std::string join(const std::vector<Token>& ts) {
  std::string s;
  for (const auto& t : ts) s += t.text;
  return s;
}

// The name a tag opens or closes ("D:prop" in "<D:prop xmlns:D=...>").
std::string name_of(const Token& t) {
  std::size_t from = t.kind == Token::End ? 2 : 1;
  std::size_t to = t.text.find_first_of(" \t\r\n/>", from);
  return t.text.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

// The tag with its name replaced.
std::string renamed(const Token& t, const std::string& name) {
  std::size_t from = t.kind == Token::End ? 2 : 1;
  std::size_t to = t.text.find_first_of(" \t\r\n/>", from);
  if (to == std::string::npos) to = t.text.size();
  return t.text.substr(0, from) + name + t.text.substr(to);
}

// Elements as token spans [first, last]: an empty-element tag, or a start
// tag and the end tag that closes it (tags that close nothing are left
// out, so malformed input still has elements to work on).
struct Span {
  std::size_t first, last;
};
std::vector<Span> elements(const std::vector<Token>& ts) {
  std::vector<Span> out;
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].kind == Token::Empty) out.push_back({i, i});
    if (ts[i].kind == Token::Start) open.push_back(i);
    if (ts[i].kind == Token::End) {
      const std::string n = name_of(ts[i]);
      auto it = std::find_if(open.rbegin(), open.rend(),
                             [&](std::size_t o) { return name_of(ts[o]) == n; });
      if (it == open.rend()) continue;
      out.push_back({*it, i});
      open.erase(std::next(it).base(), open.end());
    }
  }
  return out;
}

std::string prefix_of(const std::string& name) {
  auto colon = name.find(':');
  return colon == std::string::npos ? std::string() : name.substr(0, colon + 1);
}

std::string fresh_name(std::mt19937_64& rng, const std::string& keep_prefix) {
  std::string prefix = pick(rng, 3) ? keep_prefix : one_of(rng, kPrefixes);
  return prefix + one_of(rng, kNames);
}

std::vector<Token> fresh_element(std::mt19937_64& rng, const std::string& prefix) {
  std::string n = fresh_name(rng, prefix);
  switch (pick(rng, 3)) {
    case 0:
      return {{Token::Empty, "<" + n + "/>"}};
    case 1:
      return {{Token::Start, "<" + n + ">"},
              {Token::Text, one_of(rng, kTexts)},
              {Token::End, "</" + n + ">"}};
    default: {  // a property inside a prop
      std::string p = prefix + "prop", c = fresh_name(rng, prefix);
      return {{Token::Start, "<" + p + ">"},
              {Token::Empty, "<" + c + "/>"},
              {Token::End, "</" + p + ">"}};
    }
  }
}

// Printable ASCII and the three whitespace controls only.
std::string printable(std::string s) {
  std::erase_if(s, [](char c) {
    auto u = static_cast<unsigned char>(c);
    return !(u >= 0x20 && u < 0x7f) && c != '\t' && c != '\n' && c != '\r';
  });
  return s;
}

std::optional<std::string> structural(std::vector<Token> ts, std::mt19937_64& rng) {
  const auto spans = elements(ts);
  if (spans.empty()) return std::nullopt;
  const Span e = spans[pick(rng, spans.size())];
  const std::string prefix = prefix_of(name_of(ts[e.first]));
  auto span_tokens = [&](Span s) {
    return std::vector<Token>(ts.begin() + static_cast<std::ptrdiff_t>(s.first),
                              ts.begin() + static_cast<std::ptrdiff_t>(s.last) + 1);
  };
  // The root: the widest element (the outermost one of a well-formed body).
  const Span root = *std::max_element(spans.begin(), spans.end(), [](Span a, Span b) {
    return a.last - a.first < b.last - b.first;
  });
  auto inside = [&] {
    if (root.first == root.last) return root.last + 1;
    return root.first + 1 + pick(rng, root.last - root.first);
  };
  switch (pick(rng, 7)) {
    case 0: {  // rename the element, both of its tags
      std::string n = fresh_name(rng, prefix);
      ts[e.first].text = renamed(ts[e.first], n);
      if (e.last != e.first) ts[e.last].text = renamed(ts[e.last], n);
      break;
    }
    case 1: {  // insert a new element
      auto add = fresh_element(rng, prefix);
      std::size_t at = inside();
      ts.insert(ts.begin() + static_cast<std::ptrdiff_t>(at), add.begin(), add.end());
      break;
    }
    case 2:  // drop the element
      ts.erase(ts.begin() + static_cast<std::ptrdiff_t>(e.first),
               ts.begin() + static_cast<std::ptrdiff_t>(e.last) + 1);
      break;
    case 3: {  // duplicate it in place
      auto copy = span_tokens(e);
      ts.insert(ts.begin() + static_cast<std::ptrdiff_t>(e.last) + 1, copy.begin(),
                copy.end());
      break;
    }
    case 4: {  // move it elsewhere inside the root
      if (e.first == root.first) return std::nullopt;
      auto moved = span_tokens(e);
      ts.erase(ts.begin() + static_cast<std::ptrdiff_t>(e.first),
               ts.begin() + static_cast<std::ptrdiff_t>(e.last) + 1);
      std::size_t at = 1 + pick(rng, ts.size() > 1 ? ts.size() - 1 : 1);
      at = std::min(at, ts.size());
      ts.insert(ts.begin() + static_cast<std::ptrdiff_t>(at), moved.begin(), moved.end());
      break;
    }
    case 5: {  // a text value: the element's content replaced by text
      std::string n = name_of(ts[e.first]);
      const std::string& open = ts[e.first].text;  // its attributes kept
      std::vector<Token> r = {
          {Token::Start,
           e.first == e.last ? open.substr(0, open.size() - 2) + ">" : open},
          {Token::Text, one_of(rng, kTexts)},
          {Token::End, "</" + n + ">"}};
      ts.erase(ts.begin() + static_cast<std::ptrdiff_t>(e.first),
               ts.begin() + static_cast<std::ptrdiff_t>(e.last) + 1);
      ts.insert(ts.begin() + static_cast<std::ptrdiff_t>(e.first), r.begin(), r.end());
      break;
    }
    default: {  // a namespace declared anew on the element
      Token& t = ts[e.first];
      std::string p = prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1);
      std::string decl =
          " xmlns" + (p.empty() ? "" : ":" + p) + "=\"" + one_of(rng, kNamespaces) + "\"";
      std::size_t end = t.text.size() - (t.kind == Token::Empty ? 2 : 1);
      std::size_t at = t.text.find(" xmlns" + (p.empty() ? "=" : ":" + p + "="));
      if (at != std::string::npos) {
        std::size_t close = t.text.find('"', t.text.find('"', at) + 1);
        if (close != std::string::npos) t.text.erase(at, close + 1 - at);
        end = t.text.size() - (t.kind == Token::Empty ? 2 : 1);
      }
      t.text.insert(end, decl);
      break;
    }
  }
  return join(ts);
}

// A raw edit that breaks the XML on purpose: a server's error paths.
std::string raw(std::string s, std::mt19937_64& rng) {
  static const char kBytes[] = "<>/:=\"'&;! x";
  if (s.empty()) return std::string(1, kBytes[pick(rng, sizeof kBytes - 1)]);
  std::size_t at = pick(rng, s.size());
  switch (pick(rng, 3)) {
    case 0:
      s.erase(at, 1 + pick(rng, 8));
      break;
    case 1:
      s.insert(at, 1, kBytes[pick(rng, sizeof kBytes - 1)]);
      break;
    default:
      s.resize(at);
      break;
  }
  return s;
}

}  // namespace

std::string mutate_xml(std::string_view body, std::mt19937_64& rng) {
  std::string in = printable(std::string(body.substr(0, kMaxXmlBody)));
  if (in.find('<') == std::string::npos || pick(rng, 32) == 0)
    return one_of(rng, kDocuments);
  std::string out;
  if (pick(rng, 10) == 0) {
    out = raw(in, rng);
  } else {
    auto s = structural(tokenize(in), rng);
    out = s ? *s : raw(in, rng);
  }
  out = printable(std::move(out));
  if (out.size() > kMaxXmlBody) return in;  // no growth past the bound
  return out;
}

}  // namespace dualfuzz::http
