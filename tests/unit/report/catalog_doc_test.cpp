// docs/findings.md is generated from the catalogue; this test fails when they drift apart.
#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/host_root.h"
#include "report/catalog_doc.h"
#include "../../test_util.h"

namespace plumb {
namespace {

TEST(CatalogDoc, FindingsMarkdownIsUpToDate) {
  std::string path = test::test_dir() + "/../docs/findings.md";
  std::string want = render_catalog(Lang::en, "md");
  if (test::update_golden()) {
    ASSERT_TRUE(write_file_atomic(path, want).ok());
    return;
  }
  auto have = read_user_file(path);
  ASSERT_TRUE(have.ok()) << have.error().describe();
  EXPECT_EQ(*have, want) << "docs/findings.md is stale: run PLUMB_UPDATE_GOLDEN=1 ctest -R CatalogDoc "
                            "(or plumb check --list --format md --out docs/findings.md)";
}

TEST(CatalogDoc, ListNamesEveryRuleAndCollector) {
  std::string text = render_catalog(Lang::en, "text");
  EXPECT_NE(text.find("collect.os"), std::string::npos);
  std::string zh = render_catalog(Lang::zh, "text");
  EXPECT_NE(zh.find("采集器"), std::string::npos);
}

}  // namespace
}  // namespace plumb
