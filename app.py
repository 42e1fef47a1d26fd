"""The dashboard's entry in a checkout: `flask --app app run` finds `create_app` here (the memory folder
then comes from $TACHIKOMA_MEMORY). The application is `tachikoma_dashboard.app`; this file is not
installed (a wheel puts no generic top-level name such as `app` into site-packages), so away from a
checkout it is `flask --app tachikoma_dashboard.app run`, or `tachikoma serve`.
"""

from tachikoma_dashboard.app import create_app

__all__ = ["create_app"]
