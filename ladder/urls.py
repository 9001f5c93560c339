from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    # The API owns everything under /api/, its schema and documentation pages included.
    path("api/", include("ladder.api.urls")),
    path("", include("ladder.web.urls")),
]
