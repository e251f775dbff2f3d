// The repository stands on its own (issue 45): a clone has no sibling folder of design notes or papers, so no text
// file of the source tree may point into one, and every relative Markdown link (README.md, src/README.md,
// experiments/errata.md and every other Markdown file) must lead to a file of the repository. The papers and their
// errata are in experiments/errata.md, the architecture in src/README.md.
#include <catch2/catch.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The sibling folder, its papers and its design note (by any path). Kept in pieces so that this file does not
// match itself.
const std::array<std::string, 4>& standalone_forbidden_references() {
  static const std::array<std::string, 4> references = {
      std::string("..") + "/shared", std::string("shared") + "/papers", std::string("shared") + "/DESIGN",
      std::string("DESIGN") + ".md"};
  return references;
}

// Build trees, run directories (git-ignored, wherever an experiment puts them) and git's own folder are not sources.
bool standalone_skipped_directory(const fs::path& directory) {
  const std::string name = directory.filename().string();
  return name == ".git" || name == "runs" || name.rfind("build", 0) == 0;
}

bool standalone_text_source(const fs::path& file) {
  static const std::set<std::string> extensions = {".md",  ".cpp", ".hpp", ".h",     ".py", ".yaml",
                                                   ".yml", ".sh",  ".txt", ".cmake", ".in"};
  return file.filename() == "CMakeLists.txt" || extensions.count(file.extension().string()) > 0;
}

std::vector<fs::path> standalone_text_sources(const fs::path& root) {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && standalone_skipped_directory(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && standalone_text_source(it->path())) files.push_back(it->path());
  }
  return files;
}

std::string standalone_relative(const fs::path& file, const fs::path& root) {
  return fs::relative(file, root).generic_string();
}

// "file:line: text" for every line of `files` holding a forbidden reference.
std::vector<std::string> standalone_outside_references(const std::vector<fs::path>& files, const fs::path& root) {
  std::vector<std::string> offences;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
      for (const std::string& reference : standalone_forbidden_references())
        if (line.find(reference) != std::string::npos) {
          offences.push_back(standalone_relative(file, root) + ":" + std::to_string(number) + ": '" + reference +
                             "' in: " + line);
          break;
        }
  }
  return offences;
}

// Every relative link target `](target)` of a Markdown file outside its code blocks, with its line number.
std::vector<std::pair<int, std::string>> standalone_markdown_links(const fs::path& file) {
  std::vector<std::pair<int, std::string>> links;
  std::ifstream in(file, std::ios::binary);
  std::string line;
  bool in_code_block = false;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find("```") != std::string::npos && line.find_first_not_of(" \t") == line.find("```")) {
      in_code_block = !in_code_block;
      continue;
    }
    if (in_code_block) continue;
    for (size_t at = line.find("]("); at != std::string::npos; at = line.find("](", at + 2)) {
      const size_t close = line.find(')', at + 2);
      if (close == std::string::npos) continue;
      std::string target = line.substr(at + 2, close - at - 2);
      if (const size_t space = target.find(' '); space != std::string::npos) target.resize(space);  // a "title"
      if (target.size() >= 2 && target.front() == '<' && target.back() == '>')
        target = target.substr(1, target.size() - 2);
      if (target.empty() || target.front() == '#' || target.find("://") != std::string::npos ||
          target.rfind("mailto:", 0) == 0)
        continue;
      links.emplace_back(number, target);
    }
  }
  return links;
}

// "file:line: (target) ..." for every link that leads nowhere or out of the repository.
std::vector<std::string> standalone_broken_links(const fs::path& document, const fs::path& root) {
  std::vector<std::string> offences;
  const fs::path canonical_root = fs::weakly_canonical(root);
  for (const auto& [number, link] : standalone_markdown_links(document)) {
    std::string path = link;
    if (const size_t hash = path.find('#'); hash != std::string::npos) path.resize(hash);
    const std::string where = standalone_relative(document, root) + ":" + std::to_string(number) + ": (" + link + ") ";
    if (path.empty()) continue;
    if (path.front() == '/') {
      offences.push_back(where + "is an absolute path");
      continue;
    }
    const fs::path target = fs::weakly_canonical(document.parent_path() / path);
    const std::string inside = standalone_relative(target, canonical_root);
    if (inside.rfind("..", 0) == 0)
      offences.push_back(where + "leads out of the repository");
    else if (!fs::exists(target))
      offences.push_back(where + "names no file of the repository");
  }
  return offences;
}

std::string standalone_joined(const std::vector<std::string>& lines) {
  std::ostringstream out;
  for (const std::string& line : lines) out << line << "\n";
  return out.str();
}

}  // namespace

TEST_CASE("no text file of the source tree refers to a path outside the repository", "[cli][docs]") {
  const fs::path root = NOISELEARN_SOURCE_DIR;
  REQUIRE(fs::exists(root / "CMakeLists.txt"));
  const std::vector<fs::path> files = standalone_text_sources(root);
  // The walk reached the sources (a wrong root or skip rule would make the check below vacuous).
  const auto found = [&](const std::string& name) {
    for (const fs::path& f : files)
      if (standalone_relative(f, root) == name) return true;
    return false;
  };
  CHECK(files.size() > 300);
  CHECK(found("README.md"));
  CHECK(found("src/README.md"));
  CHECK(found("experiments/errata.md"));
  CHECK(found("src/core/grid.hpp"));
  CHECK(found("tests/cli/test_docs_standalone.cpp"));
  const std::vector<std::string> offences = standalone_outside_references(files, root);
  INFO(
      "a clone has no such folder: cite experiments/errata.md (the papers, their errata) or src/README.md (the "
      "architecture) instead\n"
      << standalone_joined(offences));
  CHECK(offences.empty());
}

TEST_CASE("every relative Markdown link of the source tree resolves to a file of the repository", "[cli][docs]") {
  // README.md, src/README.md and experiments/errata.md first of all (where a reader starts, and the links the
  // errata give to every test that checks an erratum), and every other Markdown file with them.
  const fs::path root = NOISELEARN_SOURCE_DIR;
  for (const char* document : {"README.md", "src/README.md", "experiments/README.md", "experiments/errata.md"})
    REQUIRE(fs::exists(root / document));
  std::vector<std::string> offences;
  size_t links = 0, errata_links = 0;
  for (const fs::path& document : standalone_text_sources(root)) {
    if (document.extension() != ".md") continue;
    const size_t found = standalone_markdown_links(document).size();
    links += found;
    if (standalone_relative(document, root) == "experiments/errata.md") errata_links = found;
    const std::vector<std::string> broken = standalone_broken_links(document, root);
    offences.insert(offences.end(), broken.begin(), broken.end());
  }
  // The parser finds the links (the errata alone link some 35 tests and READMEs).
  CHECK(errata_links > 30);
  CHECK(links > 60);
  INFO(standalone_joined(offences));
  CHECK(offences.empty());
}

TEST_CASE("every erratum cited in the source tree has its anchor in experiments/errata.md", "[cli][docs]") {
  // Code and READMEs cite an erratum as "experiments/errata.md, E-Xiao-4"; the identifier must lead somewhere.
  const fs::path root = NOISELEARN_SOURCE_DIR;
  std::ifstream errata_file(root / "experiments" / "errata.md", std::ios::binary);
  REQUIRE(errata_file);
  const std::string errata((std::istreambuf_iterator<char>(errata_file)), {});
  const std::regex identifier("E-(Sommer|Gilani|Xiao|Jiang)-[0-9]+");
  std::set<std::string> cited;
  std::vector<std::string> offences;
  for (const fs::path& file : standalone_text_sources(root)) {
    std::ifstream in(file, std::ios::binary);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
      for (std::sregex_iterator it(line.begin(), line.end(), identifier), end; it != end; ++it) {
        const std::string id = it->str();
        cited.insert(id);
        if (errata.find("<a id=\"" + id + "\"></a>") == std::string::npos)
          offences.push_back(standalone_relative(file, root) + ":" + std::to_string(number) + ": " + id +
                             " has no anchor in experiments/errata.md");
      }
  }
  CHECK(cited.size() >= 15);  // the errata cite themselves: every one of the 18 is found at least there
  INFO(standalone_joined(offences));
  CHECK(offences.empty());
}
