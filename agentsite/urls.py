"""The site's HTTP routes: the admin, /healthz, /metrics, login and logout, and the chat app's pages."""

from django.contrib import admin
from django.urls import include, path

from agentsite.health import healthz
from agentsite.metrics import metrics_view
from chat.views import CustomerLoginView, CustomerLogoutView

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    path("accounts/login/", CustomerLoginView.as_view(), name="login"),
    path("accounts/logout/", CustomerLogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("chat.urls")),
]
