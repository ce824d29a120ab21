// The symbolic table through Registry::add: dispatch (highest since_opset <= target), domains,
// validation and the precedence rules between registrations. Needs no pack and no core.
#include <torch2onnx/registry.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using t2o::registry::Origin;
using t2o::registry::Registry;
using t2o::registry::Symbolic;

// Distinct bodies, so that no identical-code folding can give two of them one address.
t2o_status sym_a(const t2o_host_api*, t2o_ctx*, void*) { return 10; }
t2o_status sym_b(const t2o_host_api*, t2o_ctx*, void*) { return 11; }
t2o_status sym_c(const t2o_host_api*, t2o_ctx*, void*) { return 12; }
t2o_status sym_d(const t2o_host_api*, t2o_ctx*, void*) { return 13; }

Symbolic make(const std::string& op, int64_t since, t2o_symbolic_fn fn, const std::string& domain = "",
              uint32_t flags = 0) {
  Symbolic s;
  s.op = op;
  s.domain = domain;
  s.since_opset = since;
  s.fn = fn;
  s.flags = flags;
  s.plugin_index = 1000;  // no such plugin: "<in-process>"
  return s;
}

t2o_symbolic_fn fn_at(const Registry& r, const std::string& op, int64_t target, const std::string& domain = "") {
  const Symbolic* s = r.lookup(op, domain, target);
  return s ? s->fn : nullptr;
}

TEST(Dispatch, HighestSinceAtOrBelowTarget) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::foo", 13, &sym_b), Origin::Bundled), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 11), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 12), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 13), &sym_b);
  EXPECT_EQ(fn_at(r, "aten::foo", 17), &sym_b);
  EXPECT_EQ(fn_at(r, "aten::foo", 8), nullptr);
  EXPECT_EQ(r.lookup("aten::foo", "", 8), nullptr);
  const Symbolic* s = r.lookup("aten::foo", "", 11);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->since_opset, 9);
  EXPECT_EQ(s->op, "aten::foo");
  EXPECT_EQ(r.lookup("aten::foo", "", 17)->since_opset, 13);
}

TEST(Dispatch, RegistrationOrderDoesNotMatter) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 18, &sym_c), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::foo", 13, &sym_b), Origin::Bundled), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 10), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 17), &sym_b);
  EXPECT_EQ(fn_at(r, "aten::foo", 18), &sym_c);
  EXPECT_EQ(fn_at(r, "aten::foo", 100), &sym_c);
}

TEST(Dispatch, UnknownOp) {
  Registry r;
  EXPECT_EQ(r.lookup("aten::foo", "", 17), nullptr);
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::Bundled), "");
  EXPECT_EQ(r.lookup("aten::bar", "", 17), nullptr);
  EXPECT_EQ(r.lookup("aten::fo", "", 17), nullptr);
  EXPECT_FALSE(r.min_opset("aten::bar", "").has_value());
}

TEST(Dispatch, MinOpset) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 13, &sym_b), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::foo", 11, &sym_a), Origin::Bundled), "");
  ASSERT_TRUE(r.min_opset("aten::foo", "").has_value());
  EXPECT_EQ(*r.min_opset("aten::foo", ""), 11);
  EXPECT_FALSE(r.min_opset("aten::foo", "com.microsoft").has_value());
}

TEST(Dispatch, DomainsAreSeparate) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::foo", 1, &sym_b, "com.microsoft"), Origin::Bundled), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 8), nullptr);  // the custom domain's since 1 does not leak
  EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 1, "com.microsoft"), &sym_b);
  EXPECT_EQ(fn_at(r, "aten::foo", 20, "com.microsoft"), &sym_b);
  EXPECT_EQ(fn_at(r, "aten::foo", 20, "com.other"), nullptr);
  EXPECT_EQ(*r.min_opset("aten::foo", "com.microsoft"), 1);
  EXPECT_EQ(*r.min_opset("aten::foo", ""), 9);
  // Same since in two domains is no conflict.
  EXPECT_EQ(r.add(make("aten::foo", 9, &sym_c, "com.microsoft"), Origin::Bundled), "");
}

TEST(Dispatch, AiOnnxIsTheDefaultDomain) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a, "ai.onnx"), Origin::Bundled), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 9, ""), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 9, "ai.onnx"), &sym_a);
  EXPECT_EQ(r.lookup("aten::foo", "", 9)->domain, "");
  EXPECT_NE(r.add(make("aten::foo", 9, &sym_b, ""), Origin::Bundled), "");  // same key
}

TEST(Dispatch, InvalidRegistrationsAreRejected) {
  Registry r;
  EXPECT_NE(r.add(make("aten::foo", 9, nullptr), Origin::Bundled), "");
  EXPECT_NE(r.add(make("aten::foo", 0, &sym_a), Origin::Bundled), "");
  EXPECT_NE(r.add(make("aten::foo", -3, &sym_a), Origin::Bundled), "");
  EXPECT_NE(r.add(make("", 9, &sym_a), Origin::Bundled), "");
  EXPECT_NE(r.add(make("foo", 9, &sym_a), Origin::Bundled), "");
  EXPECT_NE(r.add(make("::foo", 9, &sym_a), Origin::Bundled), "");
  EXPECT_NE(r.add(make("aten::", 9, &sym_a), Origin::Bundled), "");
  EXPECT_NE(r.add(make("aten::foo bar", 9, &sym_a), Origin::Bundled), "");
  EXPECT_TRUE(r.all().empty());
  EXPECT_EQ(r.lookup("aten::foo", "", 20), nullptr);
  std::string why = r.add(make("aten::foo", 0, &sym_a), Origin::Bundled);
  EXPECT_NE(why.find("since"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(Precedence, SameOriginDuplicateIsRefused) {
  for (Origin origin : {Origin::Bundled, Origin::UserPath}) {
    Registry r;
    ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), origin), "");
    std::string why = r.add(make("aten::foo", 9, &sym_b), origin);
    EXPECT_NE(why, "");
    EXPECT_NE(why.find("aten::foo"), std::string::npos) << why;
    EXPECT_NE(why.find("T2O_SYMBOLIC_OVERRIDE"), std::string::npos) << why;
    EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_a);  // unchanged
    EXPECT_EQ(r.all().size(), 1u);
  }
}

TEST(Precedence, SameOriginOverrideFlagReplaces) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::foo", 13, &sym_c), Origin::Bundled), "");
  EXPECT_EQ(r.add(make("aten::foo", 9, &sym_b, "", T2O_SYMBOLIC_OVERRIDE), Origin::Bundled), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 11), &sym_b);
  EXPECT_EQ(fn_at(r, "aten::foo", 13), &sym_c);  // other versions untouched
  EXPECT_EQ(r.lookup("aten::foo", "", 11)->flags, T2O_SYMBOLIC_OVERRIDE);
  EXPECT_EQ(r.all().size(), 2u);
}

TEST(Precedence, UserPathReplacesBundled) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::Bundled), "");
  EXPECT_EQ(r.add(make("aten::foo", 9, &sym_b), Origin::UserPath), "");  // no flag needed
  EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_b);
  // A later bundled registration does not take it back, even with the flag.
  EXPECT_EQ(r.add(make("aten::foo", 9, &sym_c, "", T2O_SYMBOLIC_OVERRIDE), Origin::Bundled), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_b);
  // Two user registrations follow the same-origin rule.
  EXPECT_NE(r.add(make("aten::foo", 9, &sym_d), Origin::UserPath), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_b);
  EXPECT_EQ(r.add(make("aten::foo", 9, &sym_d, "", T2O_SYMBOLIC_OVERRIDE), Origin::UserPath), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_d);
}

TEST(Precedence, BundledAfterUserPathIsShadowed) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_b), Origin::UserPath), "");
  EXPECT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::Bundled), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_b);
  EXPECT_EQ(r.all().size(), 1u);
}

TEST(Precedence, DifferentSinceNeverConflicts) {
  for (Origin origin : {Origin::Bundled, Origin::UserPath}) {
    Registry r;
    ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), origin), "");
    EXPECT_EQ(r.add(make("aten::foo", 10, &sym_b), origin), "");
    EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_a);
    EXPECT_EQ(fn_at(r, "aten::foo", 10), &sym_b);
  }
}

// Explicit over bundled at every target: a user registration at 9 beats a bundled one at 10; below
// the user's since_opset the bundled versions still serve.
TEST(Precedence, ExplicitBeatsLaterBundledVersions) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::UserPath), "");
  EXPECT_EQ(r.add(make("aten::foo", 10, &sym_b), Origin::Bundled), "");
  EXPECT_EQ(r.add(make("aten::foo", 7, &sym_c), Origin::Bundled), "");
  EXPECT_EQ(fn_at(r, "aten::foo", 9), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 10), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 17), &sym_a);
  EXPECT_EQ(fn_at(r, "aten::foo", 8), &sym_c);
}

TEST(Dispatch, AllIsOrdered) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::zeta", 9, &sym_a), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::alpha", 13, &sym_b), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::alpha", 9, &sym_c), Origin::Bundled), "");
  ASSERT_EQ(r.add(make("aten::alpha", 1, &sym_d, "com.microsoft"), Origin::Bundled), "");
  auto all = r.all();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0]->op, "aten::alpha");
  EXPECT_EQ(all[0]->domain, "");
  EXPECT_EQ(all[0]->since_opset, 9);
  EXPECT_EQ(all[1]->since_opset, 13);
  EXPECT_EQ(all[2]->domain, "com.microsoft");
  EXPECT_EQ(all[3]->op, "aten::zeta");
}

TEST(Dispatch, PointersStayValidAsTheTableGrows) {
  Registry r;
  ASSERT_EQ(r.add(make("aten::foo", 9, &sym_a), Origin::Bundled), "");
  const Symbolic* first = r.lookup("aten::foo", "", 9);
  for (int i = 0; i < 2000; ++i)
    ASSERT_EQ(r.add(make("aten::op" + std::to_string(i), 1 + i % 20, &sym_b), Origin::Bundled), "");
  for (int since = 10; since < 30; ++since)
    ASSERT_EQ(r.add(make("aten::foo", since, &sym_c), Origin::Bundled), "");
  EXPECT_EQ(first, r.lookup("aten::foo", "", 9));
  EXPECT_EQ(first->fn, &sym_a);
  EXPECT_EQ(r.lookup("aten::foo", "", 25)->since_opset, 25);
  EXPECT_EQ(r.lookup("aten::op1999", "", 20)->since_opset, 20);
  EXPECT_EQ(r.lookup("aten::op1999", "", 19), nullptr);
}

}  // namespace
