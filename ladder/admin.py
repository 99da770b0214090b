"""The admin site's titles (each app registers its own models in its admin module)."""

from django.contrib import admin

admin.site.site_header = "Club ladder admin"
admin.site.site_title = "Club ladder admin"
admin.site.index_title = "Ladders, members and accounts"
