from adkcourse.secrets import mask_secrets, mask_url


def test_password_in_url_is_masked():
  assert mask_url("postgresql+asyncpg://app:s3cr3t@db:5432/x") == \
      "postgresql+asyncpg://app:***@db:5432/x"


def test_url_without_password_is_unchanged():
  url = "postgresql://postgres:@/postgres?host=/tmp/x"
  assert mask_url(url) == url
  assert mask_url("sqlite:///a.db") == "sqlite:///a.db"


def test_password_query_parameter_is_masked():
  assert mask_url("postgresql://u@h/db?password=hunter2&sslmode=x") == \
      "postgresql://u@h/db?password=***&sslmode=x"


def test_free_text_masks_keys_and_urls():
  text = "key AIzaSyA1234567890abcdefghijkl and postgres://u:pw@h/d"
  masked = mask_secrets(text)
  assert "AIzaSyA1234567890abcdefghijkl" not in masked and ":pw@" not in masked


def test_passwords_with_slashes_at_signs_or_colons_are_masked_whole():
  assert mask_url("postgresql://u:ab/cd@host/db") == "postgresql://u:***@host/db"
  assert mask_url("postgresql://u:p@ss@host/db") == "postgresql://u:***@host/db"
  assert mask_url("postgresql://u:a:b@host:5432/db?x=1") == "postgresql://u:***@host:5432/db?x=1"


def test_user_without_password_is_not_touched():
  assert mask_url("postgresql://user@host/db") == "postgresql://user@host/db"


def test_free_text_with_several_urls():
  text = "from 'postgresql://a:x/y@h1/d' to postgres://b:z@h2/d."
  assert mask_secrets(text) == "from 'postgresql://a:***@h1/d' to postgres://b:***@h2/d."
