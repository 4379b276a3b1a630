"""Alembic's environment for the web server's migrations: run on the engine the server
gives (``database.alembic_config``), or on the configuration's URL."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from referee.web.models import Base

config = context.config
target_metadata = Base.metadata


def run_online() -> None:
    """Apply the migrations through a connection of the server's engine."""
    engine = config.attributes.get("engine")
    if engine is None:
        engine = sa.create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == "sqlite")
        with context.begin_transaction():
            context.run_migrations()


def run_offline() -> None:
    """Write the migrations' SQL instead of running it (``alembic upgrade --sql``)."""
    context.configure(url=config.get_main_option("sqlalchemy.url"),
                      target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
