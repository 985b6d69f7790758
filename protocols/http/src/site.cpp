#include "dualfuzz/http/site.h"

#include <gumbo.h>

#include <algorithm>
#include <memory>
#include <set>

#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {
namespace {
using harness::Json;

// "http://host/p?q#f" -> "/p"; "p" against base "/a/b" -> "/a/p";
// "mailto:...", "//other/..." and empty -> "". Dot segments are left as
// they are: the model does not judge such a path as a plain one.
std::string resolve(std::string_view ref, std::string_view base) {
  while (!ref.empty() &&
         (ref.front() == ' ' || ref.front() == '\t' || ref.front() == '\n'))
    ref.remove_prefix(1);
  ref = ref.substr(0, ref.find_first_of("?#"));
  while (!ref.empty() && (ref.back() == ' ' || ref.back() == '\t' || ref.back() == '\n'))
    ref.remove_suffix(1);
  if (ref.empty() || ref.starts_with("//")) return "";
  if (const auto colon = ref.find(':');
      colon != std::string_view::npos && ref.find('/') > colon) {  // a scheme
    const std::string scheme = detail::lower(std::string(ref.substr(0, colon)));
    if (scheme != "http" && scheme != "https") return "";
    ref.remove_prefix(colon + 1);
    if (!ref.starts_with("//")) return "";
    ref.remove_prefix(2);
    const auto slash = ref.find('/');
    return slash == std::string_view::npos ? "/" : std::string(ref.substr(slash));
  }
  if (ref.front() == '/') return std::string(ref);
  const auto dir = base.rfind('/');
  return std::string(base.substr(0, dir == std::string_view::npos ? 0 : dir)) + "/" +
         std::string(ref);
}

void collect(const GumboNode* n, std::string_view base, std::vector<std::string>& out,
             std::set<std::string>& seen, std::size_t max) {
  if (out.size() >= max || n->type != GUMBO_NODE_ELEMENT) return;
  const GumboElement& el = n->v.element;
  auto add = [&](std::string_view ref) {
    std::string p = resolve(ref, base);
    if (!p.empty() && out.size() < max && seen.insert(p).second)
      out.push_back(std::move(p));
  };
  for (const char* name : {"href", "src"})
    if (const GumboAttribute* a = gumbo_get_attribute(&el.attributes, name))
      add(a->value);
  // A sitemap's <loc>URL</loc> (parsed as an unknown HTML element).
  if (el.tag == GUMBO_TAG_UNKNOWN && el.original_tag.data) {
    GumboStringPiece tag = el.original_tag;
    gumbo_tag_from_original_text(&tag);
    if (std::string_view(tag.data, tag.length) == "loc" && el.children.length == 1) {
      const auto* text = static_cast<const GumboNode*>(el.children.data[0]);
      if (text->type == GUMBO_NODE_TEXT) add(text->v.text.text);
    }
  }
  for (unsigned i = 0; i < el.children.length; ++i)
    collect(static_cast<const GumboNode*>(el.children.data[i]), base, out, seen, max);
}

}  // namespace

Json site_read(const std::string& path) {
  return {{"method", "GET"}, {"path", path}, {"site", true}};
}

std::string site_script(const std::vector<std::string>& paths, bool shared) {
  const Json mark = shared ? Json("shared") : Json(true);
  std::string s;
  unsigned l = 1;
  auto req = [&](const std::string& path, const char* method, const Json& headers) {
    Json q = {{"method", method}, {"path", path}, {"site", mark}};
    if (!headers.empty()) q["headers"] = headers;
    std::string line = "req " + std::to_string(l) + " on c0: " + harness::dump_json(q);
    l += 2;
    return line + "\n";
  };
  for (const std::string& p : paths) {
    const unsigned shown = l + 1;  // the first GET's answer
    const std::string ref = std::to_string(shown) + ".(this@\"headers\"@";
    s += req(p, "GET", Json::object()) + "wait " + std::to_string(shown - 1) + "\n";
    s += req(p, "HEAD", Json::object());
    // (References are J-expressions, spliced in after dump(): placeholders.)
    std::string inm = req(p, "GET", {{"if-none-match", "@INM@"}});
    inm.replace(inm.find("\"@INM@\""), 7, ref + "\"etag\").id");
    std::string ims = req(p, "GET", {{"if-modified-since", "@IMS@"}});
    ims.replace(ims.find("\"@IMS@\""), 7, ref + "\"last-modified\").id");
    std::string if_range = req(p, "GET", {{"range", "bytes=1-"}, {"if-range", "@IR@"}});
    if_range.replace(if_range.find("\"@IR@\""), 6, ref + "\"etag\").id");
    s += inm + ims + req(p, "GET", {{"range", "bytes=0-0"}}) + if_range;
    // (Safe: what the server allows on it, a 405 with Allow if it refuses.)
    s += req(p, "OPTIONS", Json::object());
  }
  // Once per run, on the first path: an HTTP/1.0 GET (the answer's framing,
  // RFC 9112 §6.1) and an offer to switch to h2c (a 101 names what it
  // switches to, RFC 9110 §7.8). Each ends its connection (closes_after).
  if (!paths.empty()) {
    std::string old = req(paths.front(), "GET", Json::object());
    old.insert(old.find("\"method\""), "\"version\":\"HTTP/1.0\",");
    s += old;
    s += req(paths.front(), "GET",
             {{"upgrade", "h2c"},
              {"connection", "Upgrade, HTTP2-Settings"},
              {"http2-settings", "AAMAAABkAAQAoAAAAAIAAAAA"}});
  }
  return s;
}

std::vector<std::string> site_links(const Json& r, std::string_view base,
                                    std::size_t max) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  if (!r.is_object()) return out;
  if (auto h = r.find("headers"); h != r.end() && h->is_object())
    if (auto loc = h->find("location"); loc != h->end() && loc->is_string())
      if (std::string p = resolve(loc->get_ref<const std::string&>(), base); !p.empty()) {
        seen.insert(p);
        out.push_back(std::move(p));
      }
  auto b = r.find("body");
  if (b == r.end() || !b->is_string() || b->get_ref<const std::string&>().empty())
    return out;
  const std::string& body = b->get_ref<const std::string&>();
  // (gumbo parses any bytes; a page of megabytes is not worth it.)
  if (body.size() > (4u << 20)) return out;
  std::unique_ptr<GumboOutput, void (*)(GumboOutput*)> doc(
      gumbo_parse_with_options(&kGumboDefaultOptions, body.data(), body.size()),
      [](GumboOutput* o) { gumbo_destroy_output(&kGumboDefaultOptions, o); });
  if (doc) collect(doc->root, base, out, seen, max);
  return out;
}

}  // namespace dualfuzz::http
